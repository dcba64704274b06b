//! The error type of the build pipeline.

/// Anything that stops a module from being built.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{action} `{path}`: {source}")]
    Io {
        /// What was being done (`failed to read`).
        action: &'static str,
        /// The path involved.
        path: std::path::PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

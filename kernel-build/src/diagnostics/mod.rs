//! The one catalog of diagnostics shared by the macro and the build helper, and their rendering.

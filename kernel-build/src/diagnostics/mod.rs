//! The one catalog of diagnostics shared by the macro and the build helper, and their rendering.
//!
//! Every phase reports problems as [`Diagnostic`] values collected into a
//! [`Diagnostics`] accumulator, so that one run shows every error at once. The words
//! of each message live in the catalog submodules ([`front`] for the CUDA front end
//! and the verification of compiled images); this module only carries and renders them.

pub mod build;
pub mod check;
pub mod front;
pub mod generators;
pub mod host;
pub mod inline;
pub mod options;
pub mod shared;
pub mod tune;
pub mod units;

use std::fmt;

use crate::model::SourceLoc;

/// One problem: a message, where it is (when known), and explanatory notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The message: lowercase, no trailing period.
    pub message: String,
    /// Where the problem is in the CUDA source.
    pub loc: Option<SourceLoc>,
    /// Further explanations or hints, one per entry.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// A diagnostic with a message and no location.
    pub(in crate::diagnostics) fn error(message: impl Into<String>) -> Self {
        Diagnostic {
            message: message.into(),
            loc: None,
            notes: Vec::new(),
        }
    }

    /// Sets the location.
    pub fn at(mut self, loc: Option<SourceLoc>) -> Self {
        self.loc = loc;
        self
    }

    /// Appends a note.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Converts to a `syn::Error` at `span`, appending the CUDA location and the notes
    /// to the message (a string literal has no finer stable span).
    pub fn to_syn_error(&self, span: proc_macro2::Span) -> syn::Error {
        let mut text = self.message.clone();
        if let Some(loc) = &self.loc {
            text.push_str(&format!(" (at {loc})"));
        }
        for note in &self.notes {
            text.push_str(&format!("\n  = note: {note}"));
        }
        syn::Error::new(span, text)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(loc) = &self.loc {
            write!(f, "{loc}: ")?;
        }
        write!(f, "error: {}", self.message)?;
        for note in &self.notes {
            write!(f, "\n  = note: {note}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}

/// A collecting accumulator of diagnostics: phases push every problem they find and
/// stop only between phases.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
}

impl Diagnostics {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a diagnostic.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.list.push(diagnostic);
    }

    /// Moves every diagnostic of `other` into `self`.
    pub fn append(&mut self, other: Diagnostics) {
        self.list.extend(other.list);
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Number of diagnostics recorded.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// The diagnostics in the order they were recorded.
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.list.iter()
    }

    /// `Ok(())` when empty, otherwise `Err(self)`: the step between two phases.
    pub fn into_result(self) -> Result<(), Diagnostics> {
        if self.is_empty() { Ok(()) } else { Err(self) }
    }

    /// One `syn::Error` at `span` combining every diagnostic, each with its location and
    /// notes in the message.
    pub fn to_syn_error(&self, span: proc_macro2::Span) -> syn::Error {
        let mut iter = self.list.iter().map(|d| d.to_syn_error(span));
        let mut first = iter
            .next()
            .unwrap_or_else(|| syn::Error::new(span, "unknown error in the CUDA front end"));
        for e in iter {
            first.combine(e);
        }
        first
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics { list: vec![d] }
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.into_iter()
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.list.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diagnostic_displays_location_message_and_notes() {
        let d = front::unterminated("comment")
            .at(Some(SourceLoc {
                file: "k.cu".into(),
                line: 3,
                column: 7,
            }))
            .note("declare it or include its header");
        assert_eq!(
            d.to_string(),
            "k.cu:3:7: error: unterminated comment\n  = note: declare it or include its header"
        );
    }

    #[test]
    fn a_new_error_has_no_location() {
        let d = front::unterminated("comment");
        assert!(d.loc.is_none());
    }

    #[test]
    fn at_sets_the_location() {
        let d = front::unterminated("x").at(Some(SourceLoc {
            file: "a.cu".into(),
            line: 1,
            column: 1,
        }));
        assert_eq!(d.loc.unwrap().line, 1);
    }

    #[test]
    fn note_adds_a_note() {
        let d = front::unterminated("x").note("because");
        assert_eq!(d.notes, ["because"]);
    }

    #[test]
    fn a_diagnostic_becomes_a_syn_error_with_its_message() {
        let d = front::unterminated("comment");
        let e = d.to_syn_error(proc_macro2::Span::call_site());
        assert_eq!(e.to_string(), "unterminated comment");
    }

    #[test]
    fn diagnostics_fail_with_every_error_pushed() {
        let mut all = Diagnostics::new();
        assert!(all.is_empty());
        all.push(front::unterminated("comment"));
        all.push(front::unterminated("string"));
        let err = all.into_result().unwrap_err();
        assert_eq!(err.len(), 2);
        assert_eq!(
            err.to_string(),
            "error: unterminated comment\nerror: unterminated string"
        );
    }

    #[test]
    fn new_diagnostics_are_empty() {
        assert!(Diagnostics::new().is_empty());
    }

    #[test]
    fn push_adds_one() {
        let mut d = Diagnostics::new();
        d.push(front::unterminated("x"));
        assert_eq!(d.len(), 1);
    }

    #[test]
    fn append_takes_every_diagnostic_of_the_other() {
        let mut a = Diagnostics::new();
        a.append(Diagnostics::from(front::unterminated("x")));
        assert_eq!(a.len(), 1);
    }

    #[test]
    fn new_diagnostics_have_length_zero() {
        assert_eq!(Diagnostics::new().len(), 0);
    }

    #[test]
    fn new_diagnostics_iterate_over_nothing() {
        let d = Diagnostics::new();
        assert_eq!(d.iter().count(), 0);
    }

    #[test]
    fn no_diagnostics_are_ok() {
        assert!(Diagnostics::new().into_result().is_ok());
    }

    #[test]
    fn diagnostics_become_one_syn_error_each() {
        let mut d = Diagnostics::new();
        d.push(front::unterminated("a"));
        d.push(front::unterminated("b"));
        let e = d.to_syn_error(proc_macro2::Span::call_site());
        assert_eq!(e.into_iter().count(), 2);
    }
}

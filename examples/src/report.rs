//! [`Report`]: the short printed summary every example ends with.

use std::fmt::Display;
use std::process::ExitCode;
use std::time::Duration;

use cuda_kernel_runtime::Gpu;

use crate::compare::Comparison;

/// Lines of facts (device, sizes, timings) and checks against the CPU reference, printed by
/// [`Report::finish`], which also gives the exit status.
///
/// ```
/// use kernel_examples::{Report, compare, Tolerance};
/// let mut r = Report::titled("demo");
/// r.fact("elements", 2);
/// r.check("y", compare(&[1.0f32, 2.0], &[1.0, 2.0], Tolerance::EXACT));
/// assert!(r.passed());
/// assert!(r.render().contains("PASS"));
/// ```
#[derive(Clone, Debug)]
pub struct Report {
    title: String,
    facts: Vec<(String, String)>,
    checks: Vec<(String, Comparison)>,
}

impl Report {
    /// A report headed by `title`, naming the device and its architecture.
    ///
    /// ```no_run
    /// let gpu = cuda_kernel_runtime::Gpu::new(0)?;
    /// let r = kernel_examples::Report::new("saxpy", &gpu);
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub fn new(title: &str, gpu: &Gpu) -> Report {
        let mut r = Report::titled(title);
        r.fact(
            "device",
            format!("{} ({}), #{}", gpu.name(), gpu.arch(), gpu.ordinal()),
        );
        r
    }

    /// A report with no device line (for runs over several devices).
    ///
    /// ```
    /// assert!(kernel_examples::Report::titled("x").render().starts_with("== x =="));
    /// ```
    pub fn titled(title: &str) -> Report {
        Report {
            title: title.to_owned(),
            facts: Vec::new(),
            checks: Vec::new(),
        }
    }

    /// Adds a line `label  value`.
    ///
    /// ```
    /// let mut r = kernel_examples::Report::titled("x");
    /// r.fact("size", "4 x 4");
    /// assert!(r.render().contains("size"));
    /// ```
    pub fn fact(&mut self, label: &str, value: impl Display) -> &mut Report {
        self.facts.push((label.to_owned(), value.to_string()));
        self
    }

    /// Adds a timing line in milliseconds, with a derived rate when `rate` is given
    /// (e.g. `Some((bytes as f64 / 1e9, "GB/s"))`: the amount per second is printed).
    ///
    /// ```
    /// let mut r = kernel_examples::Report::titled("x");
    /// r.time("copy", std::time::Duration::from_millis(2), Some((1.0, "GB/s")));
    /// assert!(r.render().contains("500.0 GB/s"));
    /// ```
    pub fn time(&mut self, label: &str, took: Duration, rate: Option<(f64, &str)>) -> &mut Report {
        let ms = took.as_secs_f64() * 1e3;
        let value = match rate {
            Some((amount, unit)) if took > Duration::ZERO => {
                format!("{ms:.3} ms ({:.1} {unit})", amount / took.as_secs_f64())
            }
            _ => format!("{ms:.3} ms"),
        };
        self.fact(label, value)
    }

    /// Adds a check against the CPU reference.
    ///
    /// ```
    /// use kernel_examples::{Report, compare, Tolerance};
    /// let mut r = Report::titled("x");
    /// r.check("bad", compare(&[1.0f32], &[2.0], Tolerance::EXACT));
    /// assert!(!r.passed());
    /// ```
    pub fn check(&mut self, label: &str, result: Comparison) -> &mut Report {
        self.checks.push((label.to_owned(), result));
        self
    }

    /// Whether there is at least one check and every check passed.
    ///
    /// ```
    /// assert!(!kernel_examples::Report::titled("nothing checked").passed());
    /// ```
    pub fn passed(&self) -> bool {
        !self.checks.is_empty() && self.checks.iter().all(|(_, c)| c.pass())
    }

    /// The report as text.
    ///
    /// ```
    /// let r = kernel_examples::Report::titled("x");
    /// assert!(r.render().ends_with("FAIL (no check)\n"));
    /// ```
    pub fn render(&self) -> String {
        let width = self
            .facts
            .iter()
            .map(|(l, _)| l.len())
            .chain(self.checks.iter().map(|(l, _)| l.len() + 6))
            .max()
            .unwrap_or(0);
        let mut out = format!("== {} ==\n", self.title);
        for (label, value) in &self.facts {
            out.push_str(&format!("{label:<width$}  {value}\n"));
        }
        for (label, c) in &self.checks {
            let verdict = if c.pass() { "PASS" } else { "FAIL" };
            let label = format!("check {label}");
            out.push_str(&format!("{label:<width$}  {verdict}  {c}\n"));
        }
        out.push_str(match (self.checks.is_empty(), self.passed()) {
            (true, _) => "FAIL (no check)\n",
            (false, true) => "PASS\n",
            (false, false) => "FAIL\n",
        });
        out
    }

    /// Prints the report and returns the exit status: success only when [`passed`](Self::passed).
    ///
    /// ```
    /// use kernel_examples::{Report, compare, Tolerance};
    /// let mut r = Report::titled("x");
    /// r.check("y", compare(&[1u8], &[1], Tolerance::EXACT));
    /// assert_eq!(r.finish(), std::process::ExitCode::SUCCESS);
    /// ```
    pub fn finish(&self) -> ExitCode {
        print!("{}", self.render());
        if self.passed() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    }
}

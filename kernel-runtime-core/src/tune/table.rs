//! A table of choices built into the program, consulted before the cache and before timing.

use std::sync::OnceLock;

use cuda_kernel_objects::tuning::{Choice, TableError, parse_table, render_table};

use crate::error::Error;

/// Tuned choices embedded in the binary, so that a deployed program times nothing on the GPU
/// models the table covers.
///
/// The text is the table `cuda-kernel-inspect tune export` writes from a cache folder (or
/// [`Table::render`] from [`Tuner::choices`](super::Tuner::choices)); embed it with
/// `include_str!`. A row applies to a call when its kernel, GPU name, compute capability,
/// module hash and key are the call's; the driver it was timed under is not compared. The
/// text is read at the first call that needs it; [`Table::choices`] reads it at once (a test
/// can check a table that way).
///
/// ```
/// use cuda_kernel_runtime::tune::Table;
/// static TUNED: Table = Table::new(
///     "# cuda-kernel tuning table 1\nsum\tNVIDIA H100 80GB HBM3\t9.0\t13.0\t3fa2c01d9e7b4a55\tn=1048576\tblock256\t10240\n",
/// );
/// assert_eq!(TUNED.choices()?[0].variant, "block256");
/// # Ok::<(), cuda_kernel_runtime::Error>(())
/// ```
#[derive(Debug)]
pub struct Table {
    text: &'static str,
    parsed: OnceLock<Result<Vec<Choice>, TableError>>,
}

impl Table {
    /// The table written in `text` (read when first needed).
    ///
    /// ```
    /// static EMPTY: cuda_kernel_runtime::tune::Table =
    ///     cuda_kernel_runtime::tune::Table::new("# cuda-kernel tuning table 1\n");
    /// assert!(EMPTY.choices()?.is_empty());
    /// # Ok::<(), cuda_kernel_runtime::Error>(())
    /// ```
    pub const fn new(text: &'static str) -> Table {
        Table {
            text,
            parsed: OnceLock::new(),
        }
    }

    /// The table's rows; an error names the line that cannot be read.
    ///
    /// ```
    /// let bad = cuda_kernel_runtime::tune::Table::new("sum\tH100");
    /// assert!(bad.choices().unwrap_err().to_string().contains("line 1"));
    /// ```
    pub fn choices(&self) -> Result<&[Choice], Error> {
        match self.parsed.get_or_init(|| parse_table(self.text)) {
            Ok(rows) => Ok(rows),
            Err(e) => Err(Error::Tuning {
                kernel: "(embedded table)".into(),
                problem: e.to_string(),
            }),
        }
    }

    /// The text of a table holding `choices`, for a file the build embeds.
    ///
    /// ```
    /// use cuda_kernel_runtime::tune::{Choice, Table};
    /// let row = Choice { kernel: "sum".into(), gpu: "NVIDIA H100 80GB HBM3".into(),
    ///     compute_capability: (9, 0), driver: "13.0".into(), module: "none".into(),
    ///     key: "n=4096".into(), variant: "block128".into(), nanos: 900 };
    /// let text = Table::render(&[row]);
    /// assert!(text.lines().any(|l| l.starts_with("sum\t")));
    /// ```
    pub fn render(choices: &[Choice]) -> String {
        render_table(choices)
    }

    /// The row for `want`'s place (its variant and time ignored).
    pub(crate) fn find(&self, want: &Choice) -> Result<Option<&Choice>, Error> {
        Ok(self.choices()?.iter().find(|c| c.same_place(want)))
    }
}

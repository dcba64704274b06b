//! What a module's device code records of its source: line tables unless turned off, a
//! debug build (`-G`) on request. The module's own setting comes first, then
//! `KERNEL_BUILD_DEVICE_DEBUG` and `KERNEL_BUILD_LINE_INFO`; a `-G` among the module's
//! flags or `KERNEL_BUILD_NVCC_FLAGS` asks for a debug build too.

use crate::env::{self, Reporting, Var};
use crate::model::options::{DeviceDebug, LinkMode};
use crate::model::request::ModuleRequest;

/// The flags that ask nvcc for line tables or a debug build themselves.
const LINE_FLAGS: [&str; 2] = ["-lineinfo", "--generate-line-info"];
const DEBUG_FLAGS: [&str; 2] = ["-G", "--device-debug"];

/// What `req`'s device code records.
pub(crate) fn choose(req: &ModuleRequest, reporting: Reporting) -> DeviceDebug {
    let asked_in_flags =
        asks_for_debug(&req.flags) || asks_for_debug(&crate::compile::flags_from_env(reporting));
    let full = req
        .device_debug
        .or_else(|| env::switch(Var::DEVICE_DEBUG, reporting))
        .unwrap_or(false);
    if full || asked_in_flags {
        return DeviceDebug::Full;
    }
    let lines = req
        .line_info
        .or_else(|| env::switch(Var::LINE_INFO, reporting))
        .unwrap_or(true);
    if lines {
        DeviceDebug::Lines
    } else {
        DeviceDebug::None
    }
}

/// Whether `flags` ask nvcc for a debug build themselves (`-G`).
pub(crate) fn asks_for_debug(flags: &[String]) -> bool {
    flags.iter().any(|f| DEBUG_FLAGS.contains(&f.as_str()))
}

/// `flags` with the compiler's flag for `debug` added once; a debug build drops the
/// line-table flags, which `-G` overrides (nvcc warns of the pair).
pub(crate) fn with_flag(mut flags: Vec<String>, debug: DeviceDebug) -> Vec<String> {
    if debug == DeviceDebug::Full {
        flags.retain(|f| !LINE_FLAGS.contains(&f.as_str()));
    }
    let Some(flag) = debug.compiler_flag() else {
        return flags;
    };
    let already = match debug {
        DeviceDebug::Full => &DEBUG_FLAGS,
        _ => &LINE_FLAGS,
    };
    if !flags.iter().any(|f| already.contains(&f.as_str())) {
        flags.push(flag.to_owned());
    }
    flags
}

/// How the module's files are joined under `debug`: nvcc cannot compile a debug build to
/// LTO-IR, so an `lto` module is device-linked as `rdc`.
pub(super) fn link_mode(mode: LinkMode, debug: DeviceDebug) -> LinkMode {
    if debug == DeviceDebug::Full && mode == LinkMode::Lto {
        LinkMode::Rdc
    } else {
        mode
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> ModuleRequest {
        let text = "__global__ void k() {}".to_owned();
        ModuleRequest::new("m", crate::model::request::SourceInput::Inline { text })
    }

    #[test]
    fn line_tables_are_the_default_and_the_request_decides_first() {
        let mut req = request();
        assert_eq!(choose(&req, Reporting::Silent), DeviceDebug::Lines);
        req.line_info = Some(false);
        assert_eq!(choose(&req, Reporting::Silent), DeviceDebug::None);
        req.device_debug = Some(true);
        assert_eq!(choose(&req, Reporting::Silent), DeviceDebug::Full);
    }

    #[test]
    fn a_g_from_the_environments_flags_is_seen() {
        assert!(asks_for_debug(&[
            "-O3".to_owned(),
            "--device-debug".to_owned()
        ]));
        assert!(!asks_for_debug(&["-lineinfo".to_owned()]));
    }

    #[test]
    fn a_g_among_the_flags_is_a_debug_build() {
        let mut req = request();
        req.flags = vec!["-G".into()];
        assert_eq!(choose(&req, Reporting::Silent), DeviceDebug::Full);
    }

    #[test]
    fn the_flag_is_added_once_and_g_drops_line_tables() {
        let given = vec!["-O3".to_owned(), "-lineinfo".to_owned()];
        assert_eq!(
            with_flag(given.clone(), DeviceDebug::Lines),
            ["-O3", "-lineinfo"]
        );
        assert_eq!(with_flag(given.clone(), DeviceDebug::Full), ["-O3", "-G"]);
        assert_eq!(with_flag(vec![], DeviceDebug::None), Vec::<String>::new());
        assert_eq!(with_flag(vec![], DeviceDebug::Lines), ["-lineinfo"]);
    }

    #[test]
    fn a_debug_build_links_lto_as_rdc() {
        assert_eq!(link_mode(LinkMode::Lto, DeviceDebug::Full), LinkMode::Rdc);
        assert_eq!(link_mode(LinkMode::Lto, DeviceDebug::Lines), LinkMode::Lto);
        assert_eq!(
            link_mode(LinkMode::Whole, DeviceDebug::Full),
            LinkMode::Whole
        );
    }
}

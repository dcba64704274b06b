//! The warnings that name the module (kernels missing from some images, kernels without a
//! typed stub), made for each build from its cached result instead of stored with it, so
//! that a file built again under another module name is reported under the new name.

use crate::diagnostics::front as msg;
use crate::model::ModuleInfo;

/// Every warning of a module's cached result (its model and targets) that names the module.
pub(crate) fn module_warnings(module: &str, info: &ModuleInfo, targets: &[String]) -> Vec<String> {
    let mut warnings: Vec<String> = availability_warning(module, targets, info)
        .into_iter()
        .collect();
    warnings.extend(untyped_warnings(module, info));
    warnings
}

/// The one warning of a module whose kernels are not all in every image.
fn availability_warning(module: &str, targets: &[String], info: &ModuleInfo) -> Option<String> {
    let missing: Vec<(String, Vec<String>)> = info
        .kernels
        .iter()
        .filter(|k| k.images.len() < targets.len())
        // A tuned variant left out of some targets has a warning of its own.
        .filter(|k| !info.left_out.iter().any(|(name, _, _)| *name == k.name))
        .map(|k| (k.name.clone(), k.targets()))
        .collect();
    (!missing.is_empty())
        .then(|| msg::kernels_on_some_targets(module, info.kernels.len(), &missing, targets))
}

/// The warnings of a module's kernels without a typed stub; the kernels the front end did
/// not reach, when it stopped reading, are named in the one warning that says where.
fn untyped_warnings(module: &str, info: &ModuleInfo) -> Vec<String> {
    let mut warnings = Vec::new();
    let mut after_stop = None;
    if let Some(stopped) = &info.stopped {
        let why = msg::stopped_before(stopped);
        let names: Vec<String> = info
            .untyped
            .iter()
            .filter(|k| k.why == why)
            .map(|k| k.name.clone())
            .collect();
        warnings.push(msg::reading_stopped(module, stopped, &names));
        after_stop = Some(why);
    }
    let kernels: Vec<(String, String, Option<String>)> = info
        .untyped
        .iter()
        .filter(|k| after_stop.as_ref() != Some(&k.why))
        .map(|k| {
            (
                k.name.clone(),
                k.why.clone(),
                k.loc.as_ref().map(ToString::to_string),
            )
        })
        .collect();
    warnings.extend(msg::kernels_untyped(module, &kernels));
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kernels the front end did not reach are named in the one warning that says where it
    /// stopped, not each in a warning of its own; other untyped kernels keep theirs.
    #[test]
    fn a_stopped_reading_is_one_warning() {
        let stopped = "k.cu:3:5: error: expected `}` to close a block, found end of input";
        let untyped = |name: &str, why: String| crate::model::UntypedKernel {
            name: name.into(),
            symbol: name.into(),
            params: vec![],
            param_types: vec![],
            param_names: vec![],
            why,
            loc: None,
            images: vec![],
        };
        let info = crate::model::ModuleInfo {
            stopped: Some(stopped.into()),
            untyped: vec![
                untyped("late", crate::diagnostics::front::stopped_before(stopped)),
                untyped("closure", "it takes a closure".into()),
            ],
            ..Default::default()
        };
        let w = untyped_warnings("ops", &info);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[0].contains("stopped reading at k.cu:3:5") && w[0].ends_with("`late`"),
            "{w:?}"
        );
        assert!(w[1].contains("kernel `closure` has no typed stub"), "{w:?}");
    }
}

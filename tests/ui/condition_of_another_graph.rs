// A conditional handle belongs to the graph being built that made it: giving one graph's
// condition to another graph's WHILE node is a compile error (each builder has its own
// lifetime brand).
fn build(gpu: &cuda_kernel_runtime::Gpu) -> Result<(), cuda_kernel_runtime::Error> {
    gpu.build_graph(|outer| {
        let go = outer.condition(1)?;
        gpu.build_graph(|inner| inner.while_loop(go, |_g| Ok(())))?;
        Ok(())
    })?;
    Ok(())
}

fn main() {}

//! The build.rs example as an example target: `cargo run -p kernel-example-buildrs --example buildrs`.

fn main() -> std::process::ExitCode {
    kernel_example_buildrs::run()
}

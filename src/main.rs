fn main() -> std::process::ExitCode {
    plugins::run(std::env::args_os())
}

/// `pow` for indicatif's rate estimate (`f64::powf`), the binary's only use of libm: defined
/// here, the linker needs no libm.so.6, and every process skips loading it (about 12 page
/// faults and 30 µs of each start; docs/PERFORMANCE.md, issue 43). The libm crate is a port
/// of musl's; an estimate of the time left needs no more than that.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[unsafe(no_mangle)]
pub extern "C" fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

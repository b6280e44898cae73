fn main() -> std::process::ExitCode {
    plugins::run(std::env::args_os())
}

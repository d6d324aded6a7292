use std::process::ExitCode;

fn main() -> ExitCode {
    zcode::cli::run(std::env::args_os().skip(1).collect())
}

use clap::Parser;
use graphpay::cli::{self, Cli};

/// mimalloc: 20% less CPU per page read than the system allocator, measured (see
/// `docs/benchmarks/reads.md`). Built without transparent huge pages (`no_thp`), which
/// would make it keep 2 MiB pages resident where it uses a few bytes of them.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let outcome = match cli::runtime(&cli) {
        Ok(runtime) => runtime.block_on(async {
            graphpay::telemetry::init(cli.log_format);
            cli::run(cli).await
        }),
        Err(error) => Err(format!("cannot start the runtime: {error}")),
    };
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            std::process::ExitCode::FAILURE
        }
    }
}

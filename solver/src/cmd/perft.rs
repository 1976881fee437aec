//! `moulin perft`.

/// Arguments of `moulin perft`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `moulin perft`.
pub fn run(_args: &Args) -> super::Outcome {
    anyhow::bail!("`moulin perft` is not built yet")
}

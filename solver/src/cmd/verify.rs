//! `moulin verify`.

/// Arguments of `moulin verify`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `moulin verify`.
pub fn run(_args: &Args) -> super::Outcome {
    anyhow::bail!("`moulin verify` is not built yet")
}

//! `moulin moves`.

/// Arguments of `moulin moves`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `moulin moves`.
pub fn run(_args: &Args) -> super::Outcome {
    anyhow::bail!("`moulin moves` is not built yet")
}

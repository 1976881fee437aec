//! `moulin probe`.

/// Arguments of `moulin probe`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `moulin probe`.
pub fn run(_args: &Args) -> super::Outcome {
    anyhow::bail!("`moulin probe` is not built yet")
}

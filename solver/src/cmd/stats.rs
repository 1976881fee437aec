//! `moulin stats`.

/// Arguments of `moulin stats`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `moulin stats`.
pub fn run(_args: &Args) -> super::Outcome {
    anyhow::bail!("`moulin stats` is not built yet")
}

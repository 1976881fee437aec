//! `moulin tamper`.

/// Arguments of `moulin tamper`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `moulin tamper`.
pub fn run(_args: &Args) -> super::Outcome {
    anyhow::bail!("`moulin tamper` is not built yet")
}

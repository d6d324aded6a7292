//! A listing piped into a reader that has gone (`zcode models | head -0`)
//! ends quietly with success instead of panicking on the closed pipe.

#![cfg(unix)]

use std::process::{Command, Stdio};

fn run_into_closed_pipe(args: &[&str]) -> std::process::Output {
    let home = tempfile::tempdir().expect("temp home");
    let project = tempfile::tempdir().expect("temp project");
    use std::os::fd::{FromRawFd, OwnedFd};
    let mut fds = [0; 2];
    // SAFETY: `pipe` fills the two descriptors it was given room for.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "a pipe");
    // SAFETY: both descriptors were just made and are owned here alone.
    let (reader, writer) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // No reader at all: the first write fails with a broken pipe.
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_zcode"))
        .args(args)
        .current_dir(project.path())
        .env("ZCODE_HOME", home.path())
        .env("OPENAI_API_KEY", "sk-test")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_API_KEY")
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("zcode runs")
}

#[test]
fn ux_listings_into_a_closed_pipe_end_quietly() {
    for args in [
        &["models"][..],
        &["sessions", "list"],
        &["permission", "list"],
        &[
            "permission",
            "check",
            "--tool",
            "Bash",
            "--input",
            r#"{"command":"ls"}"#,
        ],
    ] {
        let out = run_into_closed_pipe(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(out.status.success(), "{args:?}: {:?} {stderr}", out.status);
    }
}

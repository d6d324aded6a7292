//! Faults in the model stream through the real `zcode -p` binary: an
//! endless reply stops at the output limit, a keep-alive-only stream and
//! a slow drip time out, Ctrl+C keeps the partial answer, a 200 HTML page
//! is one clear error. Limits come from the model's entry in config.json.

#![cfg(unix)]

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::fault_server::{Fault, FaultServer, Output, Wire};
use support::headless::{Harness, Run};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use zcode::model::limits::output_cutoff_bytes;
use zcode::store::entry_kind;

/// Writes a config whose only model is `fault/m` at `server`, with these
/// extra model keys.
fn configure(h: &Harness, server: &FaultServer, model_keys: Value) {
    let mut model = json!({"id": "m", "contextWindow": 100_000});
    if let (Some(m), Some(extra)) = (model.as_object_mut(), model_keys.as_object()) {
        m.extend(extra.clone());
    }
    h.write_config(&json!({
        "model": "fault/m",
        "providers": [{
            "id": "fault",
            "kind": "openai",
            "baseUrl": server.openai_base_url(),
            "models": [model],
        }],
    }));
}

/// The assistant messages saved in the run's only session.
fn saved_assistant_texts(h: &Harness) -> Vec<String> {
    let sessions = h.sessions();
    assert_eq!(sessions.len(), 1);
    h.entries(&sessions[0].id)
        .into_iter()
        .filter(|e| e.kind == entry_kind::ASSISTANT_MESSAGE)
        .map(|e| e.payload["text"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_stream_cli_endless_stream_stops_at_the_output_limit() {
    let h = Harness::new();
    let server = FaultServer::start(Fault::Endless {
        wire: Wire::OpenAi,
        output: Output::Text,
        delta_bytes: 200,
    })
    .await;
    configure(&h, &server, json!({"maxOutputTokens": 2000}));
    let run = h.run(&["-p", "write forever"], &[]).await;
    assert_eq!(run.code, Some(1), "{run}");
    assert!(
        run.stderr
            .contains("the reply passed the output limit of 2000 tokens")
            && run.stderr.contains("raise maxOutputTokens for this model"),
        "{run}"
    );
    assert_eq!(server.requests()[0]["max_tokens"], 2000);
    let texts = saved_assistant_texts(&h);
    assert_eq!(texts.len(), 1, "{run}");
    let cutoff = output_cutoff_bytes(2000) as usize;
    assert!(
        (cutoff..cutoff + 200).contains(&texts[0].len()),
        "{}",
        texts[0].len()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_stream_cli_keep_alive_only_stream_times_out() {
    let h = Harness::new();
    let server = FaultServer::start(Fault::KeepAliveOnly {
        every: Duration::from_millis(100),
    })
    .await;
    configure(&h, &server, json!({"contentIdleTimeoutSecs": 1}));
    let run = h.run(&["-p", "think"], &[]).await;
    assert_eq!(run.code, Some(1), "{run}");
    assert!(
        run.stderr.contains("no reply content for 1 s")
            && run.stderr.contains("contentIdleTimeoutSecs"),
        "{run}"
    );
    assert_eq!(server.request_count(), 1, "{run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_stream_cli_slow_drip_hits_the_request_timeout_and_keeps_the_partial() {
    let h = Harness::new();
    let server = FaultServer::start(Fault::SlowDeltas {
        wire: Wire::OpenAi,
        every: Duration::from_millis(500),
    })
    .await;
    configure(&h, &server, json!({"requestTimeoutSecs": 2}));
    let run = h.run(&["-p", "drip"], &[]).await;
    assert_eq!(run.code, Some(1), "{run}");
    assert!(
        run.stderr.contains("the request took longer than 2 s")
            && run.stderr.contains("requestTimeoutSecs"),
        "{run}"
    );
    let texts = saved_assistant_texts(&h);
    assert!(texts[0].starts_with("tick tick"), "{texts:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_stream_cli_html_200_is_one_error_naming_the_url_once() {
    let h = Harness::new();
    let server = FaultServer::start(Fault::Body {
        content_type: Some("text/html".into()),
        body: b"<html><body><h1>Welcome to nginx!</h1></body></html>".to_vec(),
    })
    .await;
    configure(&h, &server, json!({}));
    let run = h.run(&["-p", "hello"], &[]).await;
    assert_eq!(run.code, Some(1), "{run}");
    let url = format!("{}/chat/completions", server.openai_base_url());
    assert_eq!(run.stderr.matches(&url).count(), 1, "{run}");
    assert!(
        run.stderr.contains(
            "answered 200 with text/html, not an event stream: <html><body><h1>Welcome to nginx!</h1>"
        ),
        "{run}"
    );
    assert_eq!(server.request_count(), 1, "retried: {run}");
}

/// Starts `zcode -p` with stream-json output, waits for its first text
/// delta, sends SIGINT and returns the run; the stream never ends by
/// itself, so only the signal ends the run within the harness's limit.
/// stdout is read all along, so that a full pipe never holds the child up.
async fn interrupt_cli(h: &Harness) -> Run {
    let mut child = h
        .command(&["-p", "go", "--output-format", "stream-json"], &[])
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (first_delta, saw_delta) = tokio::sync::oneshot::channel::<()>();
    let reader = tokio::spawn(async move {
        let mut lines = BufReader::new(stdout).lines();
        let mut first_delta = Some(first_delta);
        let mut last = String::new();
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains(r#""type":"assistant_delta""#) {
                if let Some(tx) = first_delta.take() {
                    let _ = tx.send(());
                }
            } else {
                last = line;
            }
        }
        last
    });
    let errors = tokio::spawn(async move {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text).await;
        text
    });
    tokio::time::timeout(support::headless::RUN_TIMEOUT, saw_delta)
        .await
        .expect("zcode streams the reply")
        .expect("a text delta arrives");
    let pid = child.id().unwrap() as libc::pid_t;
    // SAFETY: signalling our own child by its pid.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let status = tokio::time::timeout(support::headless::RUN_TIMEOUT, child.wait())
        .await
        .expect("zcode ends after Ctrl+C")
        .unwrap();
    Run {
        code: status.code(),
        stdout: reader.await.unwrap(),
        stderr: errors.await.unwrap(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_stream_cli_ctrl_c_during_a_flood_keeps_the_partial_answer() {
    let h = Harness::new();
    // Busy all the time, but far from any limit when the signal comes.
    let server = FaultServer::start(Fault::Flood { padding: 1000 }).await;
    configure(&h, &server, json!({}));
    let run = interrupt_cli(&h).await;
    assert_eq!(run.code, Some(130), "{run}");
    let result: Value = serde_json::from_str(&run.stdout).unwrap_or(Value::Null);
    assert_eq!(result["end"], "interrupted", "{run}");
    let texts = saved_assistant_texts(&h);
    assert_eq!(texts.len(), 1, "{run}");
    assert!(!texts[0].is_empty() && texts[0].chars().all(|c| c == 'x'));
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_stream_cli_ctrl_c_during_a_drip_keeps_the_partial_answer() {
    let h = Harness::new();
    let server = FaultServer::start(Fault::SlowDeltas {
        wire: Wire::OpenAi,
        every: Duration::from_millis(50),
    })
    .await;
    configure(&h, &server, json!({}));
    let run = interrupt_cli(&h).await;
    assert_eq!(run.code, Some(130), "{run}");
    let texts = saved_assistant_texts(&h);
    assert!(texts[0].starts_with("tick"), "{texts:?}");
}

mod support;
use support::fake_model_server::{FakeModelServer, Reply};
use support::{fake_provider, test_settings};
use zcode::config::ProviderKind;
use zcode::model::openai::OpenAiProvider;
use zcode::model::anthropic::AnthropicProvider;
use zcode::model::{Message, ModelProvider, ModelRequest};

fn request() -> ModelRequest {
    ModelRequest { model: "m".into(), system: "s".into(), messages: vec![Message::User { content: "hi".into() }], tools: vec![], max_output_tokens: None, reasoning: None }
}

#[tokio::test]
async fn explore() {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    let server = FakeModelServer::start().await;
    for r in [Reply::json(500, &serde_json::json!({"error":{"message":"boom"}})), Reply::text(503, "<html><body>down</body></html>"), Reply::status(502)] { for _ in 0..3 { server.enqueue(r.clone()); } }
    let urls = [format!("http://127.0.0.1:{port}/v1"), "http://nonexistent.invalid/v1".to_string(), format!("https://{}/v1", server.addr()), server.openai_base_url(), server.openai_base_url(), server.openai_base_url()];
    for u in urls {
        let p = OpenAiProvider::new(&fake_provider(ProviderKind::Openai, &u), Some("k".into()), test_settings());
        match p.stream(&request()).await { Err(e) => println!("OPENAI {u}\n  {e}\n  {e:?}"), Ok(_) => println!("ok") }
        let u2 = u.trim_end_matches("/v1");
        let p = AnthropicProvider::new(&fake_provider(ProviderKind::Anthropic, u2), Some("k".into()), test_settings());
        match p.stream(&request()).await { Err(e) => println!("ANTH {u2}\n  {e}"), Ok(_) => println!("ok") }
    }
}

//! Two small HTTP sites on 127.0.0.1 and 127.0.0.2 that stand for two
//! hosts in WebFetch tests; each records the paths it was asked for.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use zcode::permission::rules::{Rule, RuleSet};

/// One host: its `http://ip:port` and the paths requested from it.
pub struct Site {
    listener: Option<TcpListener>,
    pub base: String,
    /// `ip:port`, for building Locations in odd forms.
    pub authority: String,
    requested: Arc<Mutex<Vec<String>>>,
}

impl Site {
    pub async fn bind(ip: &str) -> Site {
        let listener = TcpListener::bind((ip, 0)).await.unwrap();
        let authority = listener.local_addr().unwrap().to_string();
        Site {
            listener: Some(listener),
            base: format!("http://{authority}"),
            authority,
            requested: Arc::default(),
        }
    }

    /// Serves `/plain` (names the site; any query), the given redirects (302 to the
    /// Location as written) and 404 otherwise.
    pub fn serve(&mut self, redirects: &[(&str, String)]) {
        let listener = self.listener.take().unwrap();
        let redirects: Arc<HashMap<String, String>> = Arc::new(
            redirects
                .iter()
                .map(|(p, l)| (p.to_string(), l.clone()))
                .collect(),
        );
        let requested = self.requested.clone();
        let name = self.authority.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut stream, _)) = listener.accept().await else {
                    return;
                };
                let redirects = redirects.clone();
                let requested = requested.clone();
                let name = name.clone();
                tokio::spawn(async move {
                    let Some(path) = read_request_path(&mut stream).await else {
                        return;
                    };
                    requested.lock().unwrap().push(path.clone());
                    let (status, extra, body) = if let Some(location) = redirects.get(&path) {
                        (302, format!("Location: {location}\r\n"), String::new())
                    } else if path.split('?').next() == Some("/plain") {
                        (200, String::new(), format!("plain text from {name}"))
                    } else {
                        (404, String::new(), "no such page".to_string())
                    };
                    let head = format!(
                        "HTTP/1.1 {status} X\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n",
                        body.len()
                    );
                    let _ = stream.write_all(head.as_bytes()).await;
                    let _ = stream.write_all(body.as_bytes()).await;
                    let _ = stream.shutdown().await;
                });
            }
        });
    }

    pub fn requested(&self) -> Vec<String> {
        self.requested.lock().unwrap().clone()
    }
}

/// Site A on 127.0.0.1 and site B on 127.0.0.2, bound but not serving.
pub async fn two_sites() -> (Site, Site) {
    (Site::bind("127.0.0.1").await, Site::bind("127.0.0.2").await)
}

/// WebFetch rules with these contents, by kind.
pub fn webfetch_rules(allow: &[&str], ask: &[&str], deny: &[&str]) -> RuleSet {
    let make = |list: &[&str]| {
        list.iter()
            .map(|c| Rule::with_content("WebFetch", *c))
            .collect()
    };
    RuleSet {
        allow: make(allow),
        ask: make(ask),
        deny: make(deny),
    }
}

/// Reads one request's head from `stream`; the path it asks for (`/` when
/// the request line has none), or `None` when the client went away first.
pub async fn read_request_path(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut request = Vec::new();
    let mut buf = [0u8; 1024];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&request);
    Some(text.split_whitespace().nth(1).unwrap_or("/").to_string())
}

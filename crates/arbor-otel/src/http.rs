//! OTLP/HTTP with protobuf: each request of an export POSTed to a collector's or a backend's
//! `/v1/traces` as it is made (`send`), with the user's headers (authentication), a timeout for
//! the whole of each request, and the retries OTLP asks for on 429, 502, 503 and 504.
//!
//! A failure is never a quiet partial success: a refused connection, a timeout, an answer other
//! than 2xx, or a 2xx whose `partial_success` says spans were rejected ends the export with an
//! `Error` that says how many requests and spans the backend had accepted before it. A 2xx
//! counts as accepted only when its whole answer arrived and decodes as an
//! `ExportTraceServiceResponse` (protobuf, or OTLP-JSON when the answer says it is JSON; an
//! empty body is the empty response): an answer that stalls past the timeout, is cut short, is
//! over 1 MiB or does not decode is a failure, since what the backend kept is not known. It owns the
//! transport only; the spans come from `crate::export`.

use crate::{export, Options, Request, Summary};
use arbor_core::Analysis;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceResponse;
use prost::Message;
use std::time::Duration;

/// Where to send, and how.
#[derive(Debug, Clone)]
pub struct Endpoint {
    /// The traces URL. A URL with no path (`http://host:4318`) gets OTLP's `/v1/traces`.
    pub url: String,
    /// Extra request headers, such as `Authorization`.
    pub headers: Vec<(String, String)>,
    /// How long one request may take, connecting and answering included.
    pub timeout: Duration,
    /// How many times a request that got a retryable answer (429, 502, 503, 504) is sent again.
    pub retries: u32,
}

impl Endpoint {
    pub fn new(url: &str) -> Self {
        Endpoint { url: traces_url(url), headers: Vec::new(), timeout: Duration::from_secs(30), retries: 2 }
    }
}

/// The traces URL for what a user gave: as given when it has a path, else with `/v1/traces`.
pub fn traces_url(given: &str) -> String {
    let rest = given.split_once("://").map_or(given, |(_, r)| r);
    match rest.find('/') {
        Some(i) if rest.len() > i + 1 => given.to_owned(),
        _ => format!("{}/v1/traces", given.trim_end_matches('/')),
    }
}

/// Why an export over OTLP/HTTP failed, and what the backend had accepted before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub message: String,
    /// Requests (and their spans) the backend accepted before the failure.
    pub accepted_requests: u64,
    pub accepted_spans: u64,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)?;
        if self.accepted_requests > 0 {
            write!(
                f,
                " (the export is incomplete: {} request(s), {} span(s), had been accepted before)",
                self.accepted_requests, self.accepted_spans
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// The longest answer body read (an error message or an `ExportTraceServiceResponse`).
const MAX_ANSWER: u64 = 1 << 20;

/// The longest wait a `Retry-After` may ask for before a retry.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);

/// Send the export of `analysis` to `endpoint`, a request at a time.
pub fn send(analysis: &Analysis, options: &Options, endpoint: &Endpoint) -> Result<Summary, Error> {
    let mut client = Client::new(endpoint)?;
    export(analysis, options, |request| client.post(&request))
}

/// One endpoint's connection settings and what it has accepted so far.
pub struct Client<'e> {
    agent: ureq::Agent,
    endpoint: &'e Endpoint,
    accepted_requests: u64,
    accepted_spans: u64,
}

impl<'e> Client<'e> {
    pub fn new(endpoint: &'e Endpoint) -> Result<Self, Error> {
        let scheme = endpoint.url.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
        match scheme.as_deref() {
            Some("http") => {}
            Some("https") if cfg!(feature = "https") => {}
            Some("https") => {
                return Err(fail(format!(
                    "{} is https, and this arbor was built without TLS: build it with `--features https`",
                    endpoint.url
                )))
            }
            _ => return Err(fail(format!("{} is not an http:// or https:// URL", endpoint.url))),
        }
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(endpoint.timeout))
            .http_status_as_error(false)
            // A collector answers where it is asked; a redirect would resend the spans elsewhere.
            .max_redirects(0)
            .build();
        Ok(Client { agent: config.into(), endpoint, accepted_requests: 0, accepted_spans: 0 })
    }

    fn error(&self, message: String) -> Error {
        Error { message, accepted_requests: self.accepted_requests, accepted_spans: self.accepted_spans }
    }

    /// POST one request; retried on a retryable answer, an error otherwise.
    pub fn post(&mut self, request: &Request) -> Result<(), Error> {
        let body = request.encode_to_vec();
        let spans: u64 = request.resource_spans.iter().flat_map(|r| &r.scope_spans).map(|s| s.spans.len() as u64).sum();
        let url = &self.endpoint.url;
        let mut attempt = 0;
        loop {
            let mut req = self.agent.post(url).header("Content-Type", "application/x-protobuf");
            for (k, v) in &self.endpoint.headers {
                req = req.header(k.as_str(), v.as_str());
            }
            let answer = match req.send(&body[..]) {
                Ok(a) => a,
                Err(e) => return Err(self.error(transport(url, self.endpoint.timeout, e))),
            };
            let status = answer.status().as_u16();
            let retry_after = answer
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            let json = answer
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.to_ascii_lowercase().contains("json"));
            let read = answer.into_body().with_config().limit(MAX_ANSWER).read_to_vec();
            if (200..300).contains(&status) {
                // Accepted only when the whole answer came and says what was kept.
                let text = match read {
                    Ok(text) => text,
                    Err(e) => return Err(self.error(unread_answer(url, status, self.endpoint.timeout, e))),
                };
                let decoded = if json {
                    serde_json::from_slice::<ExportTraceServiceResponse>(&text).map_err(|e| e.to_string())
                } else {
                    ExportTraceServiceResponse::decode(&text[..]).map_err(|e| e.to_string())
                };
                let response = match decoded {
                    Ok(r) => r,
                    Err(e) => {
                        return Err(self.error(format!(
                            "{url} answered HTTP {status} with a body that is not an OTLP ExportTraceServiceResponse ({} bytes, {e}): whether it kept the spans is not known",
                            text.len()
                        )))
                    }
                };
                if let Some(p) = response.partial_success {
                    if p.rejected_spans > 0 {
                        return Err(self.error(format!(
                            "{url} rejected {} of {spans} spans: {}",
                            p.rejected_spans,
                            if p.error_message.is_empty() { "no reason given" } else { &p.error_message }
                        )));
                    }
                }
                self.accepted_requests += 1;
                self.accepted_spans += spans;
                return Ok(());
            }
            let retryable = matches!(status, 429 | 502 | 503 | 504);
            if retryable && attempt < self.endpoint.retries {
                attempt += 1;
                let wait = retry_after.unwrap_or(Duration::from_millis(500 << attempt)).min(MAX_RETRY_AFTER);
                std::thread::sleep(wait);
                continue;
            }
            // An error answer's body is only its explanation: what of it came is said.
            let text = read.unwrap_or_default();
            let said = String::from_utf8_lossy(&text);
            let said: String = said.trim().chars().take(300).collect();
            let tries = if attempt > 0 { format!(" after {} tries", attempt + 1) } else { String::new() };
            return Err(self.error(format!(
                "{url} answered HTTP {status}{tries}{}",
                if said.is_empty() { String::new() } else { format!(": {said}") }
            )));
        }
    }
}

fn fail(message: String) -> Error {
    Error { message, accepted_requests: 0, accepted_spans: 0 }
}

/// Why a 2xx answer's body could not be read whole.
fn unread_answer(url: &str, status: u16, timeout: Duration, e: ureq::Error) -> String {
    let whole = "whether it kept the spans is not known";
    match e {
        ureq::Error::BodyExceedsLimit(_) => {
            format!("{url} answered HTTP {status} with a body over {} MiB: {whole}", MAX_ANSWER >> 20)
        }
        ureq::Error::Timeout(_) => format!(
            "{url} answered HTTP {status} but its body did not arrive within {} s (--timeout): {whole}",
            timeout.as_secs_f64()
        ),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => format!(
            "{url} answered HTTP {status} but its body did not arrive within {} s (--timeout): {whole}",
            timeout.as_secs_f64()
        ),
        e => format!("{url} answered HTTP {status} but its body was cut short ({e}): {whole}"),
    }
}

fn transport(url: &str, timeout: Duration, e: ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(_) => format!("{url} did not answer within {} s (--timeout)", timeout.as_secs_f64()),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
            format!("{url} did not answer within {} s (--timeout)", timeout.as_secs_f64())
        }
        ureq::Error::Io(io) => format!("cannot reach {url}: {io}"),
        ureq::Error::ConnectionFailed => format!("cannot connect to {url}"),
        ureq::Error::HostNotFound => format!("cannot find the host of {url}"),
        e => format!("cannot send to {url}: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::traces_url;

    #[test]
    fn a_url_without_a_path_gets_the_traces_path() {
        assert_eq!(traces_url("http://127.0.0.1:4318"), "http://127.0.0.1:4318/v1/traces");
        assert_eq!(traces_url("http://127.0.0.1:4318/"), "http://127.0.0.1:4318/v1/traces");
        assert_eq!(traces_url("http://h:6006/v1/traces"), "http://h:6006/v1/traces");
        assert_eq!(
            traces_url("https://cloud.example/api/public/otel/v1/traces"),
            "https://cloud.example/api/public/otel/v1/traces"
        );
    }
}

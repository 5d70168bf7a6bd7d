//! `arbor export`: the analysis as OpenTelemetry spans, written as an OTLP-JSON file
//! (`--otlp-json FILE`, `-` for stdout) or sent over OTLP/HTTP with protobuf (`--otlp-http URL`,
//! with `--header`s for authentication). The mapping and the transport are `arbor_otel`'s; this
//! module reads the command line's options and the standard OTLP environment variable for
//! headers, and says what was exported or why it was not.

use arbor_otel::http::Endpoint;
use arbor_otel::{Options, Summary};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// What `arbor export` was asked to do.
pub struct Export {
    pub json: Option<PathBuf>,
    pub http: Option<String>,
    pub headers: Vec<String>,
    pub resource: Vec<String>,
    pub include_content: bool,
    pub timeout: f64,
    pub retries: u32,
    pub batch: usize,
}

/// `Name: value` (curl's form) or `name=value` (the OTLP variable's form).
fn header(h: &str) -> Option<(String, String)> {
    let (k, v) = h.split_once(':').or_else(|| h.split_once('='))?;
    let k = k.trim();
    (!k.is_empty() && k.bytes().all(|b| b.is_ascii_graphic())).then(|| (k.to_owned(), v.trim().to_owned()))
}

/// `OTEL_EXPORTER_OTLP_HEADERS` / `OTEL_EXPORTER_OTLP_TRACES_HEADERS`: `k=v,k2=v2`, values
/// percent-encoded (the OpenTelemetry SDKs' environment variable specification).
fn env_headers(value: &str) -> Vec<(String, String)> {
    value
        .split(',')
        .filter_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            let k = k.trim();
            (!k.is_empty()).then(|| (k.to_owned(), percent_decode(v.trim())))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn report(summary: &Summary, to: &str) {
    let synthetic = match summary.synthetic_traces {
        0 => String::new(),
        n => format!("; {n} trace(s) with synthetic times (the log has no clock: arbor.time.synthetic)"),
    };
    eprintln!(
        "arbor export: {} traces, {} spans, {} finding events in {} requests to {to}{synthetic}",
        summary.traces, summary.spans, summary.events, summary.requests
    );
}

pub fn run(paths: &[PathBuf], e: Export) -> ExitCode {
    crate::tune_allocator();
    for p in paths {
        if !arbor_core::reader::exists(p) {
            return crate::fail(&format!("no such file or folder: {}", p.display()));
        }
    }
    let mut resource = Vec::new();
    for r in &e.resource {
        match r.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => resource.push((k.trim().to_owned(), v.to_owned())),
            _ => return crate::fail(&format!("--resource wants KEY=VALUE, not `{r}`")),
        }
    }
    let options = Options { include_content: e.include_content, batch_spans: e.batch.max(1), resource };
    let endpoint = match &e.http {
        Some(url) => {
            let mut endpoint = Endpoint::new(url);
            for var in ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"] {
                if let Ok(v) = std::env::var(var) {
                    endpoint.headers.extend(env_headers(&v));
                }
            }
            for h in &e.headers {
                match header(h) {
                    Some(kv) => endpoint.headers.push(kv),
                    None => return crate::fail(&format!("--header wants `Name: value`, not `{h}`")),
                }
            }
            if !(e.timeout.is_finite() && e.timeout > 0.0) {
                return crate::fail("--timeout wants a number of seconds above 0");
            }
            endpoint.timeout = Duration::from_secs_f64(e.timeout);
            endpoint.retries = e.retries;
            // The URL is checked before the logs are read: a typo fails at once.
            if let Err(err) = arbor_otel::http::Client::new(&endpoint) {
                return crate::fail(&err.to_string());
            }
            Some(endpoint)
        }
        None => None,
    };
    let analysis = arbor_core::analyze(paths, &mut ());
    if !analysis.files.iter().any(|f| f.format.is_some()) {
        return crate::fail("nothing could be read in a known format");
    }
    let result = match (&e.json, &endpoint) {
        (_, Some(endpoint)) => arbor_otel::http::send(&analysis, &options, endpoint)
            .map(|s| (s, endpoint.url.clone()))
            .map_err(|err| err.to_string()),
        (Some(file), None) if file.as_os_str() == "-" => {
            let out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
            arbor_otel::write_json(&analysis, &options, out)
                .map(|s| (s, "stdout".to_owned()))
                .map_err(|err| format!("cannot write the export: {err}"))
        }
        (Some(file), None) => arbor_otel::write_json_file(&analysis, file, &options)
            .map(|s| (s, file.display().to_string()))
            .map_err(|err| format!("cannot write {}: {err}", file.display())),
        (None, None) => Err("say where to: --otlp-json FILE or --otlp-http URL".to_owned()),
    };
    // The process ends here: freeing the analysis piece by piece would only cost time.
    std::mem::forget(analysis);
    match result {
        Ok((summary, to)) => {
            report(&summary, &to);
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("arbor export: {why}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_read_in_both_forms() {
        assert_eq!(header("Authorization: Bearer a=b"), Some(("Authorization".into(), "Bearer a=b".into())));
        assert_eq!(header("x-key=v"), Some(("x-key".into(), "v".into())));
        assert_eq!(header("no separator"), None);
        assert_eq!(header(": v"), None);
        assert_eq!(
            env_headers("api-key=a%20b,Authorization=Basic%20eDp5,bad"),
            vec![("api-key".into(), "a b".into()), ("Authorization".into(), "Basic eDp5".into())]
        );
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%41"), "%zzA");
    }
}

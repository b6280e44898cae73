//! JSON-RPC 2.0 messages framed as the Language Server Protocol frames them:
//! `Content-Length: N` headers, a blank line, then N bytes of JSON.

use std::io::{self, BufRead, Read, Write};

use serde_json::Value;

/// A header line longer than this is malformed (real ones are under 100 bytes).
const MAX_HEADER_LINE: u64 = 1024;

/// What one read from the client gave.
#[derive(Debug)]
pub(crate) enum Incoming {
    Message(Value),
    /// Bad framing or a body that is not JSON: worth a parse error, then the
    /// next message.
    Malformed(String),
    /// The input ended (between or inside messages).
    Eof,
}

/// What the reader knows between messages.
#[derive(Debug, Default)]
pub(crate) struct Framing {
    /// The last frame's body had no known size: skip to the next `Content-Length:`
    /// before reading (done on the next read, so the error is answered at once).
    lost: bool,
}

/// The header a resynchronisation looks for, lower-case.
const LENGTH_HEADER: &[u8] = b"content-length:";

/// What a frame's headers said so far.
#[derive(Default)]
struct Headers {
    length: Option<u64>,
    /// A Content-Length header that does not parse, or two that disagree.
    bad_length: bool,
    /// The first thing wrong with the frame's headers.
    problem: Option<String>,
}

impl Headers {
    /// One header line, without its line break.
    fn read(&mut self, text: &str) {
        match text.split_once(':') {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                match value.trim().parse::<u64>() {
                    Ok(n) if self.length.is_some_and(|l| l != n) => {
                        self.bad_length = true;
                        self.problem.get_or_insert_with(|| {
                            "two Content-Length headers disagree".to_owned()
                        });
                    }
                    Ok(n) => self.length = Some(n),
                    Err(_) => {
                        self.bad_length = true;
                        self.problem.get_or_insert_with(|| {
                            format!("Content-Length {:?} is not a number", value.trim())
                        });
                    }
                }
            }
            Some(_) => {} // Content-Type and anything else: not needed.
            None => {
                self.problem
                    .get_or_insert_with(|| format!("{text:?} is not a header"));
            }
        }
    }
}

/// Read one framed message; a body over `max_body` bytes is read past, unkept.
///
/// A frame whose headers give no usable length (none, not a number, negative, two that
/// disagree) has a body of unknown size: after reporting it, the reader skips to the next
/// `Content-Length:` header, so one bad frame costs one error, never the session.
pub(crate) fn read_message(
    input: &mut impl BufRead,
    max_body: u64,
    framing: &mut Framing,
) -> io::Result<Incoming> {
    let mut headers = Headers::default();
    let mut line = Vec::new();
    let mut after_resync = false;
    if std::mem::take(&mut framing.lost) {
        if !resync(input)? {
            return Ok(Incoming::Eof);
        }
        after_resync = true;
    }
    loop {
        line.clear();
        if std::mem::take(&mut after_resync) {
            // The resynchronisation stopped right after the header's name.
            line.extend_from_slice(b"Content-Length:");
        }
        input
            .by_ref()
            .take(MAX_HEADER_LINE)
            .read_until(b'\n', &mut line)?;
        if line.is_empty() {
            return Ok(Incoming::Eof);
        }
        if line.last() != Some(&b'\n') {
            if line.len() as u64 >= MAX_HEADER_LINE {
                headers
                    .problem
                    .get_or_insert_with(|| "a header line is too long".to_owned());
                skip_line(input)?;
                continue;
            }
            return Ok(Incoming::Eof);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            break;
        }
        headers.read(text);
    }
    let length = match headers.length {
        Some(n) if !headers.bad_length => n,
        _ => {
            // The body's size is unknown: the next read skips to the next frame.
            framing.lost = true;
            return Ok(Incoming::Malformed(headers.problem.unwrap_or_else(|| {
                "the message has no Content-Length header".to_owned()
            })));
        }
    };
    if length > max_body {
        let skipped = io::copy(&mut input.by_ref().take(length), &mut io::sink())?;
        if skipped < length {
            return Ok(Incoming::Eof);
        }
        return Ok(Incoming::Malformed(format!(
            "the message is {length} bytes; the limit is {max_body}"
        )));
    }
    let mut body = Vec::with_capacity(usize::try_from(length).unwrap_or(0));
    input.by_ref().take(length).read_to_end(&mut body)?;
    if (body.len() as u64) < length {
        return Ok(Incoming::Eof);
    }
    if let Some(problem) = headers.problem {
        return Ok(Incoming::Malformed(problem));
    }
    Ok(match serde_json::from_slice(&body) {
        Ok(value) => Incoming::Message(value),
        Err(e) => Incoming::Malformed(format!("the body is not JSON: {e}")),
    })
}

/// Read up to and including the next `Content-Length:` (any case); whether one was found
/// before the input ended.
fn resync(input: &mut impl BufRead) -> io::Result<bool> {
    let mut matched = 0;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(false);
        }
        let mut used = 0;
        for &b in buf {
            used += 1;
            matched = if b.to_ascii_lowercase() == LENGTH_HEADER[matched] {
                matched + 1
            } else if b.to_ascii_lowercase() == LENGTH_HEADER[0] {
                1
            } else {
                0
            };
            if matched == LENGTH_HEADER.len() {
                input.consume(used);
                return Ok(true);
            }
        }
        input.consume(used);
    }
}

/// Read past the rest of an overlong line.
fn skip_line(input: &mut impl BufRead) -> io::Result<()> {
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        if let Some(i) = buf.iter().position(|b| *b == b'\n') {
            input.consume(i + 1);
            return Ok(());
        }
        let n = buf.len();
        input.consume(n);
    }
}

/// Write one framed message and flush it.
pub(crate) fn write_message(output: &mut impl Write, message: &Value) -> io::Result<()> {
    let body = message.to_string();
    write!(output, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    output.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8]) -> Vec<String> {
        let mut input = bytes;
        let mut out = Vec::new();
        let mut framing = Framing::default();
        loop {
            match read_message(&mut input, 64, &mut framing).unwrap() {
                Incoming::Message(v) => out.push(v.to_string()),
                Incoming::Malformed(m) => out.push(format!("malformed: {m}")),
                Incoming::Eof => return out,
            }
        }
    }

    #[test]
    fn frames_and_recovers() {
        let bytes = b"Content-Length: 2\r\n\r\n{}\
Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:  4 \r\n\r\nnull\
Content-Length: x\r\n\r\n\
garbage\r\n\r\n\
Content-Length: 3\r\n\r\n{]}\
Content-Length: 100\r\n\r\n";
        assert_eq!(
            read(bytes),
            [
                "{}",
                "null",
                "malformed: Content-Length \"x\" is not a number",
                // The frame without a length is skipped to the next header, garbage and all.
                "malformed: the body is not JSON: key must be a string at line 1 column 2",
            ]
        );
    }

    #[test]
    fn bounds_bodies_and_header_lines() {
        let mut bytes = b"Content-Length: 65\r\n\r\n".to_vec();
        bytes.extend([b' '; 65]);
        bytes.extend(b"X-Long: ");
        bytes.extend([b'a'; 3000]);
        bytes.extend(b"\r\nContent-Length: 2\r\n\r\n[]Content-Length: 1\r\n\r\n1");
        assert_eq!(
            read(&bytes),
            [
                "malformed: the message is 65 bytes; the limit is 64",
                "malformed: a header line is too long",
                "1",
            ]
        );
    }

    /// One bad frame, with a body, never costs the frames after it: each bad header
    /// block is reported once and the next message is read (issue: a negative length,
    /// two lengths, a non-ASCII header name desynchronised the server for good).
    #[test]
    fn a_bad_frame_with_a_body_costs_one_error() {
        let body = br#"{"jsonrpc":"2.0","id":1,"method":"x"}"#;
        let bad_headers: [&[u8]; 6] = [
            b"Content-Length: -5\r\n\r\n",
            b"Content-Length: 5\r\nContent-Length: 38\r\n\r\n",
            "C\u{f6}ntent-Length: 38\r\n\r\n".as_bytes(),
            b"Content-Length: 1e3\r\n\r\n",
            b"\r\n",
            b"garbage\r\n\r\n",
        ];
        for bad in bad_headers {
            let mut bytes = bad.to_vec();
            bytes.extend_from_slice(body);
            for _ in 0..3 {
                bytes.extend(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
                bytes.extend_from_slice(body);
            }
            let got = read(&bytes);
            let messages = got.iter().filter(|m| !m.starts_with("malformed")).count();
            assert_eq!(
                (got.len(), messages),
                (4, 3),
                "{:?}: {got:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    /// Framing fuzz: whatever bytes are spliced between frames, every frame after the next
    /// well-formed header is read, and reading always ends.
    #[test]
    fn framing_survives_spliced_noise() {
        let body = br#"{"jsonrpc":"2.0","method":"initialized"}"#;
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..500 {
            let mut bytes = Vec::new();
            let mut rnd = || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            };
            let noise = (rnd() % 80) as usize;
            let alphabet = b"Content-Length: \r\n0123456789-x{}\xc3\xb6";
            for _ in 0..noise {
                bytes.push(alphabet[(rnd() % alphabet.len() as u64) as usize]);
            }
            for _ in 0..2 {
                bytes.extend(format!("\r\nContent-Length: {}\r\n\r\n", body.len()).as_bytes());
                bytes.extend_from_slice(body);
            }
            let got = read(&bytes);
            let messages = got.iter().filter(|m| m.contains("initialized")).count();
            assert!(
                messages >= 1,
                "{:?}: {got:?}",
                String::from_utf8_lossy(&bytes)
            );
        }
    }
}

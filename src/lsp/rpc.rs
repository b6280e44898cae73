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

/// Read one framed message; a body over `max_body` bytes is read past, unkept.
pub(crate) fn read_message(input: &mut impl BufRead, max_body: u64) -> io::Result<Incoming> {
    let mut length: Option<u64> = None;
    let mut problem: Option<String> = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        input
            .by_ref()
            .take(MAX_HEADER_LINE)
            .read_until(b'\n', &mut line)?;
        if line.is_empty() {
            return Ok(Incoming::Eof);
        }
        if line.last() != Some(&b'\n') {
            if line.len() as u64 >= MAX_HEADER_LINE {
                problem.get_or_insert_with(|| "a header line is too long".to_owned());
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
        match text.split_once(':') {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                match value.trim().parse::<u64>() {
                    Ok(n) => length = Some(n),
                    Err(_) => {
                        problem.get_or_insert_with(|| {
                            format!("Content-Length {:?} is not a number", value.trim())
                        });
                    }
                }
            }
            Some(_) => {} // Content-Type and anything else: not needed.
            None => {
                problem.get_or_insert_with(|| format!("{text:?} is not a header"));
            }
        }
    }
    let Some(length) = length else {
        return Ok(Incoming::Malformed(problem.unwrap_or_else(|| {
            "the message has no Content-Length header".to_owned()
        })));
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
    if let Some(problem) = problem {
        return Ok(Incoming::Malformed(problem));
    }
    Ok(match serde_json::from_slice(&body) {
        Ok(value) => Incoming::Message(value),
        Err(e) => Incoming::Malformed(format!("the body is not JSON: {e}")),
    })
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
        loop {
            match read_message(&mut input, 64).unwrap() {
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
                "malformed: \"garbage\" is not a header",
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
}

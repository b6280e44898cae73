//! The composer: granit events to raw nodes with spans, tags and anchors
//! resolved, and the quoted-scalar spans the scanner checks need.

use super::*;

/// A composed node, before construction (PyYAML's node graph).
#[derive(Clone, Debug)]
pub(super) enum Raw {
    Scalar {
        value: String,
        plain: bool,
        tag: Option<String>,
        span: Span,
    },
    Seq {
        items: Vec<Raw>,
        tag: Option<String>,
        span: Span,
    },
    Map {
        pairs: Vec<(Raw, Raw)>,
        tag: Option<String>,
        span: Span,
    },
}

impl Raw {
    pub(super) fn span(&self) -> Span {
        match self {
            Raw::Scalar { span, .. } | Raw::Seq { span, .. } | Raw::Map { span, .. } => {
                span.clone()
            }
        }
    }
    pub(super) fn kind(&self) -> &'static str {
        match self {
            Raw::Scalar { .. } => "scalar",
            Raw::Seq { .. } => "sequence",
            Raw::Map { .. } => "mapping",
        }
    }
    pub(super) fn size(&self) -> usize {
        match self {
            Raw::Scalar { .. } => 1,
            Raw::Seq { items, .. } => 1 + items.iter().map(Raw::size).sum::<usize>(),
            Raw::Map { pairs, .. } => {
                1 + pairs
                    .iter()
                    .map(|(k, v)| k.size() + v.size())
                    .sum::<usize>()
            }
        }
    }
}

pub(super) fn byte_span(span: &PSpan) -> Span {
    let start = span.start.byte_offset().unwrap_or(0);
    let end = span.end.byte_offset().unwrap_or(start).max(start);
    start..end
}

pub(super) fn full_tag(tag: &Tag) -> String {
    format!("{}{}", tag.handle(), tag.suffix())
}

pub(super) fn scan_error(text: &str, e: &ScanError) -> SyntaxError {
    let at = e.marker().byte_offset().unwrap_or(0).min(text.len());
    let message = e.info();
    let mut err = error_at(text, &message, at);
    err.display = e.to_string();
    err
}

/// Frames of the collection being composed.
pub(super) enum Frame {
    /// Items, tag, anchor, start, and whether it is a flow sequence.
    Seq(Vec<Raw>, Option<String>, usize, usize, bool),
    /// Pairs, a pending key, tag, anchor, start, and whether it is a flow mapping.
    Map(
        Vec<(Raw, Raw)>,
        Option<Raw>,
        Option<String>,
        usize,
        usize,
        bool,
    ),
}

/// Composed document and the byte ranges of its quoted and block scalars
/// (`true` for block scalars).
pub(super) type Composed = (Option<Raw>, Vec<(Span, bool)>);

/// Events into one document's node graph (`None` for an empty stream).
pub(super) fn compose(text: &str) -> Result<Composed, SyntaxError> {
    // libyaml's (and so PyYAML's) readings: a BOM past the start is content,
    // and a block scalar ending the file gets no line feed.
    // Anchor events carry the names PyYAML checks (its name grammar, duplicates).
    let options = serde_saphyr::granit_parser::options! {
        block_scalar_eof_without_line_feed: true,
        bom_inside_document_as_content: true,
        emit_anchor_events: true,
    };
    let mut quoted: Vec<(Span, bool)> = Vec::new();
    let mut anchors: Vec<(usize, Raw)> = Vec::new();
    let mut names: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut root: Option<Raw> = None;
    let mut documents = 0;
    let mut expanded = 0usize;
    // Where the last event ended: an anchor or alias PyYAML ends on `:` or `?` may lie
    // between it and the scanner's error (`*a: x` as a later key is "simple key expected
    // ':'" here).
    let mut scanned = 0;
    for event in Parser::new_from_str_with_options(text, options) {
        let (event, span) = event.map_err(|e| {
            let flow = in_flow(&stack);
            name_break_before(text, scanned, &e, flow)
                .unwrap_or_else(|| unknown_alias(text, &names, &e, flow))
        })?;
        scanned = scanned.max(byte_span(&span).end);
        // An empty plain key may stand for PyYAML's value indicator only if nothing
        // (an anchor) gives it content.
        let mut anchored = false;
        let node = match event {
            Event::DocumentStart(..) => {
                documents += 1;
                if documents > 1 {
                    let at = byte_span(&span).start;
                    return Err(error_at(
                        text,
                        "expected a single document in the stream",
                        at,
                    ));
                }
                continue;
            }
            Event::Anchor(_, name) => {
                let at = byte_span(&span).start;
                pyyaml_name(text, at, "an anchor")?;
                if name.len() > pyyaml_name_len(text, at) {
                    return Err(name_break(text, at, in_flow(&stack)).unwrap_or_else(|| {
                        error_at(text, "an anchor name PyYAML does not scan", at)
                    }));
                }
                // PyYAML's composer: one node per anchor name in a document.
                if let Some(first) = names.insert(name.into_owned(), at) {
                    let (line, column) = line_column(text, first);
                    return Err(error_at(
                        text,
                        &format!(
                            "found duplicate anchor {}; first occurrence at line {line}, column {column}",
                            crate::manifest::pyval::repr_str(&text[at + 1..byte_span(&span).end])
                        ),
                        at,
                    ));
                }
                continue;
            }
            Event::Scalar(value, style, anchor, tag) => {
                anchored = anchor != 0;
                let flow = stack.iter().any(|f| match f {
                    Frame::Seq(.., flow) | Frame::Map(.., flow) => *flow,
                });
                match style {
                    ScalarStyle::Plain => {
                        // In flow context PyYAML ends a plain scalar at `?`,
                        // then finds a key indicator it cannot parse there.
                        let src = &text[byte_span(&span)];
                        // And a `:` there is always its value indicator, never
                        // the start of a plain scalar (`{id: :x}`, `[:x]`).
                        if flow && src.starts_with(':') {
                            return Err(flow_colon(text, byte_span(&span).start));
                        }
                        if flow && let Some(q) = src.get(1..).and_then(|r| r.find('?')) {
                            return Err(error_at(
                                text,
                                "while parsing a flow node: found unexpected '?'",
                                byte_span(&span).start + 1 + q,
                            ));
                        }
                    }
                    ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                        quoted.push((byte_span(&span), false));
                    }
                    _ => quoted.push((byte_span(&span), true)),
                }
                let node = Raw::Scalar {
                    value: value.into_owned(),
                    plain: style == ScalarStyle::Plain,
                    tag: tag.map(|t| full_tag(&t)),
                    span: byte_span(&span),
                };
                if anchor != 0 {
                    anchors.push((anchor, node.clone()));
                }
                node
            }
            Event::Alias(id) => {
                let at = byte_span(&span).start;
                let alias = &text[byte_span(&span)];
                pyyaml_name(text, at, "an alias")?;
                // PyYAML registers a collection's anchor before its content, so
                // `&r [1, *r]` is a list holding itself. A value without end is
                // deliberately not read (docs/PARITY.md): nothing that walks it ends.
                if stack.iter().any(|f| match f {
                    Frame::Seq(_, _, anchor, ..) | Frame::Map(_, _, _, anchor, ..) => *anchor == id,
                }) {
                    return Err(error_at(
                        text,
                        &format!(
                            "found recursive alias {alias}: it refers to the collection it is inside, a self-referential value PyYAML builds and plugins does not read"
                        ),
                        at,
                    ));
                }
                let node = anchors
                    .iter()
                    .rev()
                    .find(|(a, _)| *a == id)
                    .map(|(_, n)| n.clone())
                    .ok_or_else(|| {
                        error_at(
                            text,
                            &format!(
                                "found undefined alias {}",
                                crate::manifest::pyval::repr_str(&alias[1..])
                            ),
                            at,
                        )
                    })?;
                expanded += node.size();
                if expanded > ALIAS_BUDGET {
                    return Err(error_at(
                        text,
                        "alias expansion budget exceeded (a billion-laughs document?)",
                        byte_span(&span).start,
                    ));
                }
                node
            }
            Event::SequenceStart(style, anchor, tag) => {
                let start = byte_span(&span).start;
                stack.push(Frame::Seq(
                    Vec::new(),
                    tag.map(|t| full_tag(&t)),
                    anchor,
                    start,
                    style == serde_saphyr::granit_parser::StructureStyle::Flow,
                ));
                continue;
            }
            Event::MappingStart(style, anchor, tag) => {
                let start = byte_span(&span).start;
                stack.push(Frame::Map(
                    Vec::new(),
                    None,
                    tag.map(|t| full_tag(&t)),
                    anchor,
                    start,
                    style == serde_saphyr::granit_parser::StructureStyle::Flow,
                ));
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let end = byte_span(&span).end;
                let (node, anchor) = match stack.pop() {
                    Some(Frame::Seq(items, tag, anchor, start, _)) => (
                        Raw::Seq {
                            items,
                            tag,
                            span: start..end.max(start),
                        },
                        anchor,
                    ),
                    Some(Frame::Map(pairs, _, tag, anchor, start, _)) => (
                        Raw::Map {
                            pairs,
                            tag,
                            span: start..end.max(start),
                        },
                        anchor,
                    ),
                    None => continue,
                };
                if anchor != 0 {
                    anchors.push((anchor, node.clone()));
                }
                node
            }
            _ => continue,
        };
        match stack.last_mut() {
            Some(Frame::Seq(items, ..)) => items.push(node),
            Some(Frame::Map(pairs, key, _, _, _, flow)) => match key.take() {
                // In a flow mapping's value `?` is PyYAML's key indicator where a node
                // must start (`{key: ?x}`), not the start of a plain scalar.
                Some(_)
                    if *flow
                        && let Raw::Scalar {
                            plain: true, span, ..
                        } = &node
                        && text[span.clone()].starts_with('?') =>
                {
                    return Err(error_at(
                        text,
                        "while parsing a flow node: expected the node content, but found '?'",
                        span.start,
                    ));
                }
                Some(k) => pairs.push((k, node)),
                None => {
                    // An empty implicit key (`: 1` on its own line) is PyYAML's
                    // "expected <block end>, but found ':'".
                    if !*flow
                        && let Raw::Scalar {
                            plain: true,
                            tag: None,
                            span,
                            ..
                        } = &node
                        && span.is_empty()
                        && !text[..span.start].trim_end().ends_with('?')
                    {
                        return Err(error_at(
                            text,
                            "while parsing a block mapping: expected <block end>, but found ':'",
                            span.start,
                        ));
                    }
                    // In a flow collection an empty key is PyYAML's value indicator
                    // where a node must be (`{: x}`, `[a, : x]`), unless `?`, an
                    // anchor or a tag gives the key a node.
                    if *flow
                        && !anchored
                        && let Raw::Scalar {
                            plain: true,
                            tag: None,
                            span,
                            ..
                        } = &node
                        && span.is_empty()
                        && !text[..span.start].trim_end().ends_with('?')
                    {
                        return Err(flow_colon(text, span.start));
                    }
                    // PyYAML's simple keys are single-line, in flow mappings too: a
                    // multi-line scalar followed by `:` is an error there (one without a
                    // value, `{a\n b}`, is a key of its own).
                    if *flow
                        && let Raw::Scalar { span, .. } = &node
                        && text[span.clone()].contains(['\n', '\r'])
                        && !text[..span.start].trim_end().ends_with('?')
                        && text[span.end..].trim_start().starts_with(':')
                    {
                        return Err(error_at(
                            text,
                            "while parsing a flow mapping: expected ',' or '}', but got a multi-line key",
                            span.start,
                        ));
                    }
                    *key = Some(node);
                }
            },
            None => root = Some(node),
        }
    }
    Ok((root, quoted))
}

/// PyYAML's parser meeting its value indicator where a flow node must start.
fn flow_colon(text: &str, at: usize) -> SyntaxError {
    error_at(
        text,
        "while parsing a flow node: expected the node content, but found ':'",
        at,
    )
}

/// PyYAML's `scan_anchor` on the `&name` or `*name` at `at`: the name is ASCII letters,
/// digits, `-` and `_`, and must be followed by a blank, a line break or one of
/// `?:,]}%@``; of those, `%`, `@` and a backquote then start no token.
pub(super) fn pyyaml_name(text: &str, at: usize, what: &str) -> Result<(), SyntaxError> {
    let start = at + 1;
    let len = text[start..]
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
        .count();
    let end = start + len;
    let next = text[end..].chars().next();
    let repr = |c: Option<char>| crate::manifest::pyval::repr_str(&c.unwrap_or('\0').to_string());
    let terminates = next.is_none_or(|c| {
        matches!(
            c,
            '\0' | ' '
                | '\t'
                | '\r'
                | '\n'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
                | '?'
                | ':'
                | ','
                | ']'
                | '}'
                | '%'
                | '@'
                | '`'
        )
    });
    if len == 0 || !terminates {
        return Err(error_at(
            text,
            &format!(
                "while scanning {what}: expected alphabetic or numeric character, but found {}",
                repr(next)
            ),
            end,
        ));
    }
    if let Some(c @ ('%' | '@' | '`')) = next {
        return Err(error_at(
            text,
            &format!(
                "while scanning for the next token: found character {} that cannot start any token",
                repr(Some(c))
            ),
            end,
        ));
    }
    Ok(())
}

/// The length of the name PyYAML's `scan_anchor` reads after the `&` or `*` at `at`.
fn pyyaml_name_len(text: &str, at: usize) -> usize {
    text[at + 1..]
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
        .count()
}

/// Whether the node being composed is inside a flow collection.
fn in_flow(stack: &[Frame]) -> bool {
    stack.last().is_some_and(|f| match f {
        Frame::Seq(.., flow) | Frame::Map(.., flow) => *flow,
    })
}

/// Asks [`super::composed`] for a space where PyYAML's scanner ends an anchor or alias
/// name on `:` or `?` (`&id: x` is an anchored empty key to PyYAML), which the event
/// parser takes into the name (YAML 1.2's anchor characters). The span is where the space
/// goes.
pub(super) const NAME_BREAK: &str = "an anchor or alias name runs into `:` or `?`";
/// [`NAME_BREAK`] in a flow collection with no blank after the indicator: PyYAML's `:` and
/// `?` are indicators there whatever follows (`{&a:x}` is `{None: 'x'}`), the event
/// parser's start a plain scalar, so a second space goes after the indicator.
pub(super) const NAME_BREAK_FLOW: &str =
    "an anchor or alias name runs into `:` or `?` in a flow collection";
/// [`NAME_BREAK`] for an anchor before a block mapping's value indicator (`&id: x`): an
/// anchored empty key, which the event parser does not read in a block mapping, so the key
/// gets a `~` after the space (null, as PyYAML's empty key is).
pub(super) const NAME_BREAK_EMPTY_KEY: &str = "an anchor name runs into a block mapping's `:`";

/// [`NAME_BREAK`] for the first alias after `from` and on or before the line of the
/// scanner's error `e` whose
/// name PyYAML ends on `:` or `?` (one that starts a token: after a blank, a flow
/// indicator or the start of a line, outside a comment).
fn name_break_before(text: &str, from: usize, e: &ScanError, flow: bool) -> Option<SyntaxError> {
    // The scanner may report at the alias or past it: up to the end of that line.
    let at = e.marker().byte_offset().unwrap_or(0).min(text.len());
    let to = text[at..]
        .find(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}'])
        .map_or(text.len(), |i| at + i);
    let from = from.min(at);
    let mut comment = false;
    let mut prev = text[..from].chars().next_back();
    for (i, c) in text[from..to].char_indices() {
        let at = from + i;
        let starts = prev.is_none_or(|p| {
            matches!(
                p,
                ' ' | '\t' | '\n' | '\r' | '[' | '{' | ',' | '\u{85}' | '\u{2028}' | '\u{2029}'
            )
        });
        match c {
            '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => comment = false,
            '#' if starts => comment = true,
            '*' | '&' if starts && !comment => {
                if let Some(brk) = name_break(text, at, flow) {
                    return Some(brk);
                }
            }
            _ => {}
        }
        prev = Some(c);
    }
    None
}

/// [`NAME_BREAK`] for the `&name` or `*name` at `at` when PyYAML's name ends on `:` or `?`.
fn name_break(text: &str, at: usize, flow: bool) -> Option<SyntaxError> {
    let len = pyyaml_name_len(text, at);
    let end = at + 1 + len;
    let next = text[end..].chars().next()?;
    if len == 0 || !matches!(next, ':' | '?') {
        return None;
    }
    let after = text[end + 1..].chars().next();
    let bare = after.is_some_and(|c| {
        !matches!(
            c,
            ' ' | '\t'
                | '\r'
                | '\n'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
                | ','
                | '['
                | ']'
                | '{'
                | '}'
        )
    });
    let message = if flow && bare {
        NAME_BREAK_FLOW
    } else if !flow && !bare && next == ':' && text[at..].starts_with('&') {
        NAME_BREAK_EMPTY_KEY
    } else {
        NAME_BREAK
    };
    Some(error_at(text, message, end))
}

/// 1-based line and column of byte `at`, as PyYAML's marks count them.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rfind('\n')
        .map_or(before, |i| &before[i + 1..])
        .chars()
        .count()
        + 1;
    (line, column)
}

/// The event parser's error, in PyYAML's words where it is an alias's: a name PyYAML
/// does not scan, one whose anchor is still open (recursive), or an undefined one.
fn unknown_alias(
    text: &str,
    names: &std::collections::HashMap<String, usize>,
    e: &ScanError,
    flow: bool,
) -> SyntaxError {
    let err = scan_error(text, e);
    let at = err.span.as_ref().map_or(0, |s| s.start);
    if e.info() != "while parsing node, found unknown anchor" || !text[at..].starts_with('*') {
        return err;
    }
    if let Err(named) = pyyaml_name(text, at, "an alias") {
        return named;
    }
    if let Some(brk) = name_break(text, at, flow) {
        return brk;
    }
    let name: String = text[at + 1..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .collect();
    if names.contains_key(&name) {
        return error_at(
            text,
            &format!(
                "found recursive alias *{name}: it refers to the collection it is inside, a self-referential value PyYAML builds and plugins does not read"
            ),
            at,
        );
    }
    error_at(
        text,
        &format!(
            "found undefined alias {}",
            crate::manifest::pyval::repr_str(&name)
        ),
        at,
    )
}

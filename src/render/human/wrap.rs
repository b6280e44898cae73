//! Splitting a line into words and wrapping it as miette's textwrap does, found faster
//! for the plain lines most reports are made of.

/// The punctuation, besides letters, digits and spaces, of the lines [`words`] splits
/// itself.
pub(super) const PLAIN_PUNCTUATION: &[u8] = b"\"#&'*<=>@^_`~.,:;()[]-/";

/// What [`plain`] needs to know of a byte: whether a plain line may hold it, and how it
/// breaks.
const ALLOWED: u8 = 1;
/// No break before it, even after a space (`.` `,` `:` `;` `)` `]` `/`).
const GLUED_BEFORE: u8 = 2;
/// No break after it (`(` `[`).
const OPENING: u8 = 4;
/// A break before an opening bracket that follows it (`.` `,` `:` `;` `)` `]`).
const CLOSING: u8 = 8;

const CLASSES: [u8; 256] = {
    /// `t` with `bit` set for each of `bytes`.
    const fn mark(mut t: [u8; 256], bytes: &[u8], bit: u8) -> [u8; 256] {
        let mut i = 0;
        while i < bytes.len() {
            t[bytes[i] as usize] |= bit;
            i += 1;
        }
        t
    }
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        if (c as u8).is_ascii_alphanumeric() {
            t[c] = ALLOWED;
        }
        c += 1;
    }
    t = mark(t, b" ", ALLOWED);
    t = mark(t, PLAIN_PUNCTUATION, ALLOWED);
    t = mark(t, b".,:;)]/", GLUED_BEFORE);
    t = mark(t, b".,:;)]", CLOSING);
    mark(t, b"([", OPENING)
};

/// Whether [`plain_words`] splits `line` as the Unicode line-breaking rules (UAX #14, as
/// textwrap applies them) do: it holds only letters, digits, spaces and
/// [`PLAIN_PUNCTUATION`], no space after `(` `[` and none of `.` `,` `:` `;` `)` `]`
/// before them (no break after an opening bracket, a break before one that follows closing
/// punctuation), and it does not end in `-` (textwrap then drops the line's last break).
/// Spaces before `.` `,` `:` `;` `)` `]` `/` are no break (UAX #14 LB13: none before those,
/// even after spaces): [`word_ends_at`] keeps them in the word, as in `(aoe.* / x)`.
pub(super) fn plain(line: &str) -> bool {
    let b = line.as_bytes();
    let mut prev = 0u8;
    for (i, &c) in b.iter().enumerate() {
        let class = CLASSES[usize::from(c)];
        if class & ALLOWED == 0 {
            return false;
        }
        if class & OPENING != 0
            && (b.get(i + 1) == Some(&b' ') || CLASSES[usize::from(prev)] & CLOSING != 0)
        {
            return false;
        }
        prev = c;
    }
    !line.ends_with('-')
}

/// Where the words of a [`plain`] line end, each with the spaces after it: at the end of
/// a run of spaces and at the end of the line. (Unicode line breaking also breaks after a
/// `/` that a letter, an opening bracket or other alphabetic punctuation follows, the only
/// break a plain line has inside its space-delimited tokens; [`whole_paths`] joins those.)
fn plain_ends(line: &str) -> impl Iterator<Item = usize> + '_ {
    let b = line.as_bytes();
    (1..b.len())
        .filter(move |i| word_ends_at(b, *i))
        .chain((!line.is_empty()).then_some(line.len()))
}

/// Whether a word of a [`plain`] line `b` ends before byte `i` (`0 < i < b.len()`), as
/// [`plain_ends`] ends them: after spaces, unless `.` `,` `:` `;` `)` `]` or `/` follows.
#[inline]
fn word_ends_at(b: &[u8], i: usize) -> bool {
    b[i - 1] == b' ' && b[i] != b' ' && CLASSES[usize::from(b[i])] & GLUED_BEFORE == 0
}

/// The words of a [`plain`] line, as [`plain_ends`] ends them.
fn plain_words(line: &str) -> impl Iterator<Item = textwrap::core::Word<'_>> + '_ {
    let mut start = 0;
    plain_ends(line).map(move |end| {
        let word = textwrap::core::Word::from(&line[start..end]);
        start = end;
        word
    })
}

/// The words miette wraps a line at: textwrap's Unicode line breaking, except inside a
/// path or a URL ([`whole_paths`]). The segmenter costs a line-break segmenter per line
/// (most of the human output's wrapping), taken only for lines that are not [`plain`];
/// those are split by [`plain_words`], which gives the same words. A test compares the two
/// on every short string of each line-breaking class involved, and on random lines.
pub(super) fn words(line: &str) -> Box<dyn Iterator<Item = textwrap::core::Word<'_>> + '_> {
    if plain(line) {
        Box::new(plain_words(line))
    } else {
        Box::new(whole_paths(
            line,
            textwrap::WordSeparator::UnicodeBreakProperties.find_words(line),
        ))
    }
}

/// `words` (a split of `line`, in order) with the words of each space-delimited token that
/// holds a `/` joined into one: a path or a URL is never broken across lines, where a
/// terminal's reader could not copy it whole, and runs past the width instead.
pub(super) fn whole_paths<'a>(
    line: &'a str,
    words: impl Iterator<Item = textwrap::core::Word<'a>> + 'a,
) -> impl Iterator<Item = textwrap::core::Word<'a>> + 'a {
    let at = |w: &textwrap::core::Word<'_>| w.word.as_ptr() as usize - line.as_ptr() as usize;
    let mut words = words.peekable();
    std::iter::from_fn(move || {
        let first = words.next()?;
        if !first.whitespace.is_empty() || words.peek().is_none() {
            return Some(first);
        }
        let (start, end) = (at(&first), at(&first) + first.word.len());
        let token_start = line[..end].rfind(' ').map_or(0, |i| i + 1);
        let token_end = line[end..].find(' ').map_or(line.len(), |i| end + i);
        if !line[token_start..token_end].contains('/') {
            return Some(first);
        }
        let mut stop = end;
        for w in words.by_ref() {
            stop = at(&w) + w.word.len() + w.whitespace.len();
            if !w.whitespace.is_empty() {
                break;
            }
        }
        Some(textwrap::core::Word::from(&line[start..stop]))
    })
}

/// `text` with a line break wherever miette's textwrap `fill` (first fit, words never
/// broken, split by [`words`]) breaks it, at `width` with indents `indents` wide (the
/// first line's, the rest's), without the indents; or `None` for a text this does not
/// wrap itself: one with a line that is blank, starts with a space or is not [`plain`]
/// (there `fill` and an unwrapped handler indent differently, or words have widths other
/// than their lengths). First fit is textwrap's default wrapping only while its `smawk`
/// feature is off (it is, in miette's dependency and ours); with it on, miette would fill
/// optimally, and the test comparing the two would fail.
pub(super) fn prewrap(text: &str, width: usize, indents: (usize, usize)) -> Option<String> {
    let widths = [
        width.saturating_sub(indents.0),
        width.saturating_sub(indents.1),
    ];
    let mut out = String::with_capacity(text.len() + 8);
    for (n, line) in text.split('\n').enumerate() {
        if line.is_empty() || line.starts_with(' ') || !plain(line) {
            return None;
        }
        if n > 0 {
            out.push('\n');
        }
        // textwrap's first fit: a word goes on the line unless the line already holds a
        // word and the word's width would take it past the line's width; a line's width
        // counts each earlier word's trailing spaces. Each line of `text` starts again
        // with the first line's width.
        let b = line.as_bytes();
        let mut row = 0;
        let (mut start, mut end, mut used) = (0, 0, 0);
        // The word being read starts at `at`; its last letter ends at `word_end`.
        let (mut at, mut word_end) = (0, 0);
        for next in 1..=b.len() {
            if b[next - 1] != b' ' {
                word_end = next;
            }
            // Where [`plain_ends`] ends a word.
            if next < b.len() && !word_ends_at(b, next) {
                continue;
            }
            // A word's width is its length (a plain line is ASCII); its spaces count
            // only when another word follows it on the line.
            let word = word_end - at;
            if used + word > widths[row.min(1)] && end > start {
                out.push_str(&line[start..end]);
                out.push('\n');
                row += 1;
                start = at;
                used = 0;
            }
            used += next - at;
            end = word_end;
            at = next;
        }
        out.push_str(&line[start..end]);
    }
    Some(out)
}

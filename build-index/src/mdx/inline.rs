//! The inline scanner: JSX tags, `{expressions}`, comments and inline
//! Markdown, with state that carries across lines.

use std::collections::HashMap;

use super::types::{Import, VISIBLE_ATTRIBUTES};

/// Output of the inline scanner.
#[derive(Debug, PartialEq)]
pub(super) enum Event {
    Text(String),
    Include(String),
}

#[derive(Default, Debug)]
pub(super) enum Mode {
    #[default]
    Text,
    /// Inside `<tag …`, collecting attributes.
    Tag(Box<Tag>),
    /// Inside `{…}` in text.
    Expr { depth: usize, quote: Option<char> },
    /// Inside `<!-- … -->`.
    Comment,
}

#[derive(Default, Debug)]
pub(super) struct Tag {
    name: String,
    closing: bool,
    /// Attribute name being read, or being given a value.
    attr: String,
    /// Inside a quoted value: its quote.
    quote: Option<char>,
    /// Inside a `{…}` value: its depth.
    depth: usize,
    /// Inside a string within a `{…}` value.
    expr_quote: Option<char>,
    value: String,
    visible: Vec<String>,
    expr_values: Vec<String>,
    saw_equals: bool,
}

/// The inline scanner: JSX tags, expressions, comments and markdown inline
/// syntax, with state that carries across lines.
#[derive(Default, Debug)]
pub(super) struct Inline {
    mode: Mode,
}

/// An HTML character reference at the start of `chars` (`&amp;`, `&#123;`,
/// `&nbsp;`, …): its text and its length in chars. A no-break space reads
/// as a space.
pub(super) fn entity(chars: &[char]) -> Option<(String, usize)> {
    // `&`, then letters, digits or `#` (the longest name has 31), then `;`.
    let end = 1 + chars
        .iter()
        .skip(1)
        .take(32)
        .position(|&c| !(c.is_ascii_alphanumeric() || c == '#'))?;
    if end == 1 || chars[end] != ';' {
        return None;
    }
    let reference: String = chars[..=end].iter().collect();
    match htmlize::unescape(&reference) {
        std::borrow::Cow::Owned(text) if text != reference => {
            Some((text.replace('\u{a0}', " "), end + 1))
        }
        _ => None,
    }
}

/// What the scanner has made of a line so far.
pub(super) struct Scan<'a> {
    imports: &'a HashMap<String, Import>,
    exports: &'a HashMap<String, String>,
    /// Visible text not yet emitted.
    text: String,
    out: Vec<Event>,
}

impl Inline {
    pub(super) fn is_idle(&self) -> bool {
        matches!(self.mode, Mode::Text)
    }

    pub(super) fn describe_open(&self) -> String {
        match &self.mode {
            Mode::Text => "nothing".into(),
            Mode::Tag(t) => format!("JSX tag `<{}`", t.name),
            Mode::Expr { .. } => "expression `{`".into(),
            Mode::Comment => "comment `<!--`".into(),
        }
    }

    /// Scans one piece of text, carrying state into the next.
    pub(super) fn feed(
        &mut self,
        s: &str,
        imports: &HashMap<String, Import>,
        exports: &HashMap<String, String>,
    ) -> Vec<Event> {
        let chars: Vec<char> = s.chars().collect();
        let mut scan = Scan {
            imports,
            exports,
            text: String::new(),
            out: Vec::new(),
        };
        let mut i = 0;
        while i < chars.len() {
            i = match self.mode {
                Mode::Comment => self.comment_char(&chars, i),
                Mode::Expr { .. } => self.expr_char(&chars, i),
                Mode::Tag(_) => self.tag_char(&chars, i, &mut scan),
                Mode::Text => self.text_char(&chars, i, &mut scan.text),
            };
        }
        if !scan.text.is_empty() {
            scan.out.push(Event::Text(scan.text));
        }
        scan.out
    }

    /// Inside `<!-- … -->`: only its end matters.
    pub(super) fn comment_char(&mut self, chars: &[char], i: usize) -> usize {
        if chars[i..].starts_with(&['-', '-', '>']) {
            self.mode = Mode::Text;
            return i + 3;
        }
        i + 1
    }

    /// Inside `{…}` in text: track nesting and strings until it closes.
    pub(super) fn expr_char(&mut self, chars: &[char], i: usize) -> usize {
        let Mode::Expr { depth, quote } = &mut self.mode else {
            return i + 1;
        };
        let c = chars[i];
        if let Some(q) = *quote {
            if c == '\\' {
                return i + 2;
            }
            if c == q || (c == '\n' && q != '`') {
                *quote = None;
            }
            return i + 1;
        }
        match c {
            '"' | '`' => *quote = Some(c),
            '\'' if i == 0 || !chars[i - 1].is_alphanumeric() => *quote = Some(c),
            '{' => *depth += 1,
            '}' => {
                *depth -= 1;
                if *depth == 0 {
                    self.mode = Mode::Text;
                }
            }
            _ => {}
        }
        i + 1
    }

    /// Inside `<tag …`: attributes, quoted and `{…}` values, and `>`.
    pub(super) fn tag_char(&mut self, chars: &[char], i: usize, scan: &mut Scan) -> usize {
        let Mode::Tag(tag) = &mut self.mode else {
            return i + 1;
        };
        if tag.depth > 0 {
            return tag.expression_value_char(chars, i);
        }
        let c = chars[i];
        if let Some(q) = tag.quote {
            if c == q {
                tag.quote = None;
                tag.end_quoted_value();
            } else {
                tag.value.push(c);
            }
            return i + 1;
        }
        match c {
            '>' => {
                if let Mode::Tag(tag) = std::mem::take(&mut self.mode) {
                    close_tag(*tag, scan);
                }
            }
            '=' => tag.saw_equals = true,
            '"' | '\'' if tag.saw_equals => tag.quote = Some(c),
            '{' => {
                tag.depth = 1;
                tag.value.clear();
            }
            c if c.is_whitespace() || c == '/' => {
                if !tag.saw_equals {
                    tag.attr.clear();
                }
            }
            // An unquoted value is not JSX: ignored.
            _ if tag.saw_equals => {}
            c => tag.attr.push(c),
        }
        i + 1
    }

    /// Plain text: markdown inline syntax, and the starts of tags,
    /// expressions and comments.
    pub(super) fn text_char(&mut self, chars: &[char], i: usize, text: &mut String) -> usize {
        let c = chars[i];
        match c {
            '\\' => {
                if let Some(&n) = chars.get(i + 1) {
                    text.push(n);
                }
                return i + 2;
            }
            '`' => return code_span(chars, i, text),
            '{' => {
                self.mode = Mode::Expr {
                    depth: 1,
                    quote: None,
                };
                text.push(' ');
            }
            '<' => return self.angle(chars, i, text),
            '&' => {
                if let Some((v, n)) = entity(&chars[i..]) {
                    text.push_str(&v);
                    return i + n;
                }
                text.push(c);
            }
            '!' if chars.get(i + 1) == Some(&'[') => {}
            '[' => {}
            ']' => {
                // [text](url) and [text][ref]: keep the text only.
                let close = match chars.get(i + 1) {
                    Some('(') => Some(')'),
                    Some('[') => Some(']'),
                    _ => None,
                };
                if let Some(close) = close
                    && let Some(end) = chars[i + 2..].iter().position(|&x| x == close)
                {
                    return i + 2 + end + 1;
                }
            }
            '*' | '|' => text.push(' '),
            '~' if chars.get(i + 1) == Some(&'~') => return i + 2,
            _ => text.push(c),
        }
        i + 1
    }

    /// A `<` in text: a comment, a fragment, a closing or opening tag, an
    /// autolink, or just the character.
    pub(super) fn angle(&mut self, chars: &[char], i: usize, text: &mut String) -> usize {
        if chars[i + 1..].starts_with(&['!', '-', '-']) {
            self.mode = Mode::Comment;
            return i + 4;
        }
        let name_end = |from: usize| {
            from + chars[from..]
                .iter()
                .take_while(|&&c| is_name_char(c))
                .count()
        };
        match chars.get(i + 1).copied() {
            // `<>` fragment.
            Some('>') => {
                text.push(' ');
                i + 2
            }
            Some('/')
                if chars
                    .get(i + 2)
                    .is_some_and(|c| c.is_alphabetic() || *c == '>') =>
            {
                let j = name_end(i + 2);
                self.mode = Mode::Tag(Box::new(Tag {
                    closing: true,
                    name: chars[i + 2..j].iter().collect(),
                    ..Tag::default()
                }));
                j
            }
            Some(n) if n.is_alphabetic() => {
                let j = name_end(i + 1);
                let after = chars.get(j).copied();
                if after == Some(':') || after == Some('@') {
                    // Autolink <https://…> or <me@example.com>: keep the text.
                    if let Some(end) = chars[i..].iter().position(|&x| x == '>') {
                        text.extend(&chars[i + 1..i + end]);
                        return i + end + 1;
                    }
                    text.push('<');
                } else if after.is_none_or(|a| a.is_whitespace() || a == '>' || a == '/') {
                    self.mode = Mode::Tag(Box::new(Tag {
                        name: chars[i + 1..j].iter().collect(),
                        ..Tag::default()
                    }));
                    return j;
                } else {
                    text.push('<');
                }
                i + 1
            }
            _ => {
                text.push('<');
                i + 1
            }
        }
    }
}

impl Tag {
    /// Inside a `{…}` attribute value: collect it until its brace closes.
    pub(super) fn expression_value_char(&mut self, chars: &[char], i: usize) -> usize {
        let c = chars[i];
        if let Some(q) = self.expr_quote {
            if c == '\\' {
                self.value.push(c);
                if let Some(&n) = chars.get(i + 1) {
                    self.value.push(n);
                }
                return i + 2;
            }
            if c == q || (c == '\n' && q != '`') {
                self.expr_quote = None;
            }
        } else {
            match c {
                '"' | '\'' | '`' => self.expr_quote = Some(c),
                '{' => self.depth += 1,
                '}' => self.depth -= 1,
                _ => {}
            }
        }
        if self.depth == 0 {
            let v = std::mem::take(&mut self.value);
            self.expr_values.push(v);
            self.attr.clear();
            self.saw_equals = false;
        } else {
            self.value.push(c);
        }
        i + 1
    }

    /// A quoted value ended: keep it when the attribute is one readers see.
    pub(super) fn end_quoted_value(&mut self) {
        let v = std::mem::take(&mut self.value);
        let visible = VISIBLE_ATTRIBUTES.contains(&self.attr.as_str())
            || (self.attr == "name" && self.name.ends_with("Field"));
        if visible && !v.trim().is_empty() {
            self.visible.push(v);
        }
        self.attr.clear();
        self.saw_equals = false;
    }
}

/// An inline code span from the run of backticks at `i`: its text, or the
/// backticks themselves when the run never closes.
pub(super) fn code_span(chars: &[char], i: usize, text: &mut String) -> usize {
    let n = chars[i..].iter().take_while(|&&x| x == '`').count();
    // Find the closing run of exactly n backticks.
    let mut j = i + n;
    while j < chars.len() {
        if chars[j] == '`' {
            let m = chars[j..].iter().take_while(|&&x| x == '`').count();
            if m == n {
                text.extend(&chars[i + n..j]);
                return j + n;
            }
            j += m;
        } else {
            j += 1;
        }
    }
    text.extend(&chars[i..i + n]);
    i + n
}

/// A tag closed with `>`: its visible attributes become text; a component
/// imported from a fragment (or `<Fragments>`) becomes an include.
pub(super) fn close_tag(tag: Tag, scan: &mut Scan) {
    let text = &mut scan.text;
    if tag.closing {
        text.push(' ');
        return;
    }
    for v in &tag.visible {
        text.push(' ');
        text.push_str(v);
        text.push_str(". ");
    }
    let mut includes: Vec<String> = Vec::new();
    if scan.imports.contains_key(&tag.name) || scan.exports.contains_key(&tag.name) {
        includes.push(tag.name.clone());
    } else if tag.name == "Fragments" {
        // <Fragments fragments={{ ios: a, android: b }} />: each distinct
        // imported file, once, in order.
        for v in &tag.expr_values {
            for word in v.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')) {
                if scan.imports.contains_key(word) && !includes.iter().any(|w| w == word) {
                    includes.push(word.to_string());
                }
            }
        }
    }
    if includes.is_empty() {
        text.push(' ');
        return;
    }
    if !text.is_empty() {
        scan.out.push(Event::Text(std::mem::take(text)));
    }
    for name in includes {
        scan.out.push(Event::Include(name));
    }
}

pub(super) fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '.' | '-' | '_')
}

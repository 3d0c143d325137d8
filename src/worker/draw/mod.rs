//! HTML drawn in a worker, for the page to show as it is: the history's Files, Failures and
//! Activity tabs ([`files_html`], [`failures_html`], [`activity_html`]), the diffs of changes ([`diff_html`])
//! and the ranked search's results ([`ranked_html`]).
//! The page carries neither these views' code nor the insights they draw (`docs/size.md`).
//!
//! Every text goes through [`Html::text`] or [`Html::attr`], which escape it: log content (paths,
//! failure messages, prompts, model names) is never markup. Markup itself is only ever a
//! `&'static str`. Buttons say what they do in `data-action`, with the place they open in
//! `data-*` attributes, for the page's one click handler.

pub mod activity_html;
pub mod diff_html;
pub mod failures_html;
pub mod files_html;
pub mod ranked_html;

use sessionscope_engine::insights::report::Place;

pub use crate::render::units::grouped;

/// HTML being written.
#[derive(Default)]
pub struct Html {
    out: String,
}

impl Html {
    pub fn new() -> Html {
        Html::default()
    }

    /// Markup, written as it is: only ever a literal.
    pub fn raw(&mut self, markup: &'static str) -> &mut Html {
        self.out.push_str(markup);
        self
    }

    /// Text, escaped.
    pub fn text(&mut self, text: &str) -> &mut Html {
        escape_into(&mut self.out, text);
        self
    }

    /// `<tag` and its attributes (their values escaped), `>`.
    pub fn open(&mut self, tag: &'static str, attributes: &[(&'static str, &str)]) -> &mut Html {
        self.out.push('<');
        self.out.push_str(tag);
        for (name, value) in attributes {
            self.attr(name, value);
        }
        self.out.push('>');
        self
    }

    /// ` name="value"`, the value escaped.
    fn attr(&mut self, name: &'static str, value: &str) {
        self.out.push(' ');
        self.out.push_str(name);
        self.out.push_str("=\"");
        escape_into(&mut self.out, value);
        self.out.push('"');
    }

    pub fn close(&mut self, tag: &'static str) -> &mut Html {
        self.out.push_str("</");
        self.out.push_str(tag);
        self.out.push('>');
        self
    }

    /// `<tag attributes>text</tag>`.
    pub fn element(&mut self, tag: &'static str, attributes: &[(&'static str, &str)], text: &str) -> &mut Html {
        self.open(tag, attributes).text(text).close(tag)
    }

    /// HTML another drawing made (already escaped).
    pub fn append(&mut self, other: Html) -> &mut Html {
        self.out.push_str(&other.out);
        self
    }

    /// A button that opens a session at a place (`data-action="open-place"`).
    pub fn open_place_button(&mut self, place: &Place, label: &str) -> &mut Html {
        let unit = place.unit.to_string();
        self.element(
            "button",
            &[
                ("type", "button"),
                ("class", "link"),
                ("data-action", "open-place"),
                ("data-unit", &unit),
                ("data-session", &place.session_id),
                ("data-entry", &place.entry),
            ],
            label,
        )
    }

    pub fn finish(self) -> String {
        self.out
    }
}

/// Escapes `text` for HTML text and quoted attribute values.
fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// A time in UTC to the minute, as the rest of the app shows times: `2026-03-02 09:14`.
pub fn utc_minute(ms: Option<i64>) -> String {
    match ms {
        Some(ms) => crate::render::units::iso_time(ms)[..16].to_owned(),
        None => "no time".to_owned(),
    }
}

/// `n thing` or `n things`, the count grouped ("12,345 tokens") and the plural made as the page
/// makes it ("2 matches", "3 entries").
pub fn counted(n: u64, thing: &str) -> String {
    format!("{} {}", grouped(n), crate::logic::words::noun(n, thing))
}

/// A project's last folder name.
pub fn short_project(project: &str) -> &str {
    project.rsplit(['/', '\\']).find(|p| !p.is_empty()).unwrap_or(project)
}

/// A bar of `share` (0 to 1) of its cell's width, hidden from screen readers (the row's numbers
/// say it).
pub fn bar(html: &mut Html, share: f64, class: &'static str) {
    let width = if share > 0.0 { (share.clamp(0.0, 1.0) * 100.0).max(1.0) } else { 0.0 };
    html.raw(r#"<svg class="table-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">"#);
    html.open("rect", &[("class", class), ("x", "0"), ("y", "0"), ("width", &format!("{width:.1}")), ("height", "10")]);
    html.raw("</rect></svg>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_attributes_are_escaped_and_markup_is_only_literal() {
        let mut html = Html::new();
        html.element("p", &[("title", "\" onmouseover=\"alert(1)")], "<script>alert('x')</script> & co");
        assert_eq!(
            html.finish(),
            "<p title=\"&quot; onmouseover=&quot;alert(1)\">&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co</p>"
        );
        let place = Place {
            unit: 3,
            session: 0,
            session_id: "s\"><img src=x onerror=alert(1)>".into(),
            project: String::new(),
            agent: String::new(),
            entry: "e1".into(),
            time_ms: None,
            title: String::new(),
        };
        let mut html = Html::new();
        html.open_place_button(&place, "<b>open</b>");
        let out = html.finish();
        assert!(!out.contains("<img") && !out.contains("<b>"), "{out}");
        assert!(out.contains("data-unit=\"3\"") && out.contains("&lt;b&gt;open"));
    }

    #[test]
    fn numbers_and_names_read_well() {
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!((counted(1, "change"), counted(2, "change")), ("1 change".into(), "2 changes".into()));
        assert_eq!(counted(1234, "summary"), "1,234 summaries");
        assert_eq!(short_project("/home/dev/app/"), "app");
        assert_eq!(utc_minute(Some(0)), "1970-01-01 00:00");
    }
}

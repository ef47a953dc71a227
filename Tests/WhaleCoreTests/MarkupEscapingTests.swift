import Testing
import WhaleCore

/// The one escaper: what each kind of awkward text becomes in HTML and in XML.
@Suite struct MarkupEscapingTests {
    @Test func theFiveCharactersBecomeEntities() {
        #expect(
            MarkupEscaping.html(#"<a href="x">Tom & Jerry's</a>"#)
                == "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;")
        #expect(
            MarkupEscaping.xml(#"<a href="x">Tom & Jerry's</a>"#)
                == "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&apos;s&lt;/a&gt;")
    }

    /// `&` followed by a combining acute accent is one Character that is not equal to "&"; the
    /// SOAP login's old per-Character escaper let it through as a raw `&`, which broke the XML.
    @Test func anAmpersandWithACombiningMarkIsStillEscaped() {
        #expect(MarkupEscaping.xml("a&\u{301}b") == "a&amp;\u{301}b")
        #expect(MarkupEscaping.html("<\u{338}") == "&lt;\u{338}")
    }

    @Test func charactersXMLForbidsAreReplacedOrShown() {
        #expect(MarkupEscaping.xml("a\u{1}b\u{FFFE}\tc\nd\re") == "a\u{FFFD}b\u{FFFD}\tc\nd\re")
        #expect(MarkupEscaping.xml("esc \u{1B}[0m", forbidden: .visibleEscape) == "esc \\u{1B}[0m")
        // HTML text may carry them (the browser shows them); only XML must not.
        #expect(MarkupEscaping.html("a\u{1}b") == "a\u{1}b")
    }

    @Test func nonASCIIPassesThroughUnchanged() {
        let text = "Ærø 🐋 naïve 日本 \u{1F468}\u{200D}\u{1F469}"
        #expect(MarkupEscaping.xml(text) == text)
        #expect(MarkupEscaping.html(text) == text)
    }
}

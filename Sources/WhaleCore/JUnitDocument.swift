/// The one JUnit XML writer: `whalesim run`/`report` (one suite per run, a case per checker and
/// threshold) and `whalesim conform` (a suite per case category) describe their results as a
/// `JUnitDocument` and render it here, so both validate against the common schema CI systems read
/// (the shape of Jenkins' junit-10.xsd; `JUnitSchemaTests` checks both with xmllint).
///
/// The counts on `<testsuites>` and `<testsuite>` are derived from the cases, never passed in, so
/// they cannot disagree with what the file lists.
public struct JUnitDocument: Sendable {
    /// `<testsuites name=...>`.
    public var name: String
    /// Wall time of the whole; `nil` writes `0`.
    public var time: Double?
    public var suites: [Suite]

    public init(name: String, time: Double? = nil, suites: [Suite]) {
        self.name = name
        self.time = time
        self.suites = suites
    }

    /// One `<testsuite>`.
    public struct Suite: Sendable {
        public var name: String
        public var time: Double?
        /// ISO 8601 without a zone, as the schema's `xs:dateTime` pattern wants (see `timestamp(iso8601:)`).
        public var timestamp: String?
        /// `<properties>`, in this order; none writes no element.
        public var properties: [(name: String, value: String)]
        public var cases: [Case]
        /// The suite's `<system-out>`, after its cases.
        public var systemOut: String?

        public init(
            name: String, time: Double? = nil, timestamp: String? = nil,
            properties: [(name: String, value: String)] = [],
            cases: [Case], systemOut: String? = nil
        ) {
            self.name = name
            self.time = time
            self.timestamp = timestamp
            self.properties = properties
            self.cases = cases
            self.systemOut = systemOut
        }
    }

    /// One `<testcase>`.
    public struct Case: Sendable {
        public var classname: String
        public var name: String
        public var time: Double?
        public var outcome: Outcome
        /// The case's `<system-out>`, after its outcome.
        public var systemOut: String?

        public init(classname: String, name: String, time: Double? = nil, outcome: Outcome, systemOut: String? = nil) {
            self.classname = classname
            self.name = name
            self.time = time
            self.outcome = outcome
            self.systemOut = systemOut
        }
    }

    /// What a case came to. A failure's `text` is its evidence; a skip may carry text too.
    public enum Outcome: Sendable {
        case passed
        case failed(message: String, type: String, text: String)
        case skipped(message: String, text: String? = nil)

        var isFailure: Bool { if case .failed = self { return true } else { return false } }
        var isSkip: Bool { if case .skipped = self { return true } else { return false } }
    }

    /// JUnit's timestamp is ISO 8601 without a zone (the `xs:dateTime` pattern in junit-10.xsd).
    public static func timestamp(iso8601: String) -> String {
        iso8601.hasSuffix("Z") ? String(iso8601.dropLast()) : iso8601
    }

    /// The document, UTF-8 XML 1.0 with every text through `MarkupEscaping.xml`.
    public func render() -> String {
        let all = suites.flatMap(\.cases)
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out +=
            "<testsuites name=\"\(x(name))\" tests=\"\(all.count)\" failures=\"\(all.filter(\.outcome.isFailure).count)\""
        out += " errors=\"0\" time=\"\(Self.seconds(time))\">\n"
        for suite in suites { out += render(suite) }
        return out + "</testsuites>\n"
    }

    private func render(_ suite: Suite) -> String {
        let failures = suite.cases.filter(\.outcome.isFailure).count
        let skipped = suite.cases.filter(\.outcome.isSkip).count
        var out =
            "  <testsuite name=\"\(x(suite.name))\" tests=\"\(suite.cases.count)\" failures=\"\(failures)\" errors=\"0\""
        out += " skipped=\"\(skipped)\" time=\"\(Self.seconds(suite.time))\""
        if let stamp = suite.timestamp { out += " timestamp=\"\(x(stamp))\"" }
        out += ">\n"
        if !suite.properties.isEmpty {
            out += "    <properties>\n"
            for p in suite.properties { out += "      <property name=\"\(x(p.name))\" value=\"\(x(p.value))\"/>\n" }
            out += "    </properties>\n"
        }
        for c in suite.cases {
            out +=
                "    <testcase classname=\"\(x(c.classname))\" name=\"\(x(c.name))\" time=\"\(Self.seconds(c.time))\">\n"
            switch c.outcome {
            case .passed: break
            case .failed(let message, let type, let text):
                out += "      <failure message=\"\(x(message))\" type=\"\(x(type))\">\(x(text))</failure>\n"
            case .skipped(let message, let text):
                if let text {
                    out += "      <skipped message=\"\(x(message))\">\(x(text))</skipped>\n"
                } else {
                    out += "      <skipped message=\"\(x(message))\"/>\n"
                }
            }
            if let systemOut = c.systemOut { out += "      <system-out>\(x(systemOut))</system-out>\n" }
            out += "    </testcase>\n"
        }
        if let systemOut = suite.systemOut { out += "    <system-out>\(x(systemOut))</system-out>\n" }
        return out + "  </testsuite>\n"
    }

    private func x(_ text: String) -> String { MarkupEscaping.xml(text, forbidden: forbidden) }

    /// How characters XML forbids are written (U+FFFD for reports; conform shows them as `\u{X}`).
    public var forbidden: MarkupEscaping.Forbidden = .replacementCharacter

    /// Seconds with three decimals; an unknown time is `0`. (WhaleCore has no Foundation, so no `String(format:)`.)
    static func seconds(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "0" }
        let millis = (max(0, value) * 1000).rounded()
        let whole = Int(millis / 1000), fraction = Int(millis) % 1000
        let digits = String(fraction)
        return "\(whole)." + String(repeating: "0", count: 3 - digits.count) + digits
    }
}

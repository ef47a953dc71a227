import Foundation
import Testing
@testable import WhaleSim

@Suite struct ScenarioDecodingTests {
    /// The problems reported for `yaml`, or [] if it decodes.
    func problems(_ yaml: String) -> [String] {
        do {
            _ = try Scenario.decode(yaml: yaml, source: "test.yml")
            return []
        } catch {
            return error.problems
        }
    }

    /// `live.foreign-cpu-bound`: cores other programs may take before a second is contended
    /// (0.25 by default), `off` for a dedicated machine; anything else is refused, saying what.
    @Test func theForeignCPUBoundDecodesAndBadOnesAreRefused() throws {
        func live(_ line: String) throws -> LiveSpec? {
            try Scenario.decode(yaml: "name: t\nmode: live\nlive:\n  duration: 2s\n\(line)", source: "test.yml").live
        }
        #expect(try live("")?.foreignCPUBoundCores == 0.25)
        #expect(try live("  foreign-cpu-bound: 0.5")?.foreignCPUBoundCores == 0.5)
        #expect(try live("  foreign-cpu-bound: 2")?.foreignCPUBoundCores == 2)
        #expect(try live("  foreign-cpu-bound: off")?.foreignCPUBoundCores == nil)
        let base = "name: t\nmode: live\nlive:\n  duration: 2s\n"
        #expect(
            problems(base + "  foreign-cpu-bound: on") == [
                "live.foreign-cpu-bound: expected a number of cores (e.g. 0.25) or off, got true"
            ])
        #expect(
            problems(base + "  foreign-cpu-bound: 0") == ["live.foreign-cpu-bound: 0 is out of range 0.01...4096.0"])
        #expect(
            problems(base + "  foreign-cpu-bound: lots").first?.hasPrefix("live.foreign-cpu-bound: expected a number")
                == true)
    }

    /// `live.slow-client-queue`: the embedded server's slow-client bound (the server's default
    /// when absent, 0 allowed); a negative or non-integer value, or the key beside a server URL
    /// (whose bound whalesim cannot set), is refused, saying what.
    @Test func theSlowClientQueueDecodesAndBadOnesAreRefused() throws {
        func live(_ line: String) throws -> LiveSpec? {
            try Scenario.decode(yaml: "name: t\nmode: live\nlive:\n  duration: 2s\n\(line)", source: "test.yml").live
        }
        #expect(try live("")?.slowClientQueue == nil)
        #expect(try live("  slow-client-queue: 0")?.slowClientQueue == 0)
        #expect(try live("  slow-client-queue: 25")?.slowClientQueue == 25)
        #expect(try live("  server: embedded\n  slow-client-queue: 3")?.slowClientQueue == 3)
        let base = "name: t\nmode: live\nlive:\n  duration: 2s\n"
        #expect(
            problems(base + "  slow-client-queue: -1") == ["live.slow-client-queue: -1 is out of range 0...1000000"])
        #expect(problems(base + "  slow-client-queue: 2.5") == ["live.slow-client-queue: expected an integer, got 2.5"])
        #expect(
            problems(base + "  slow-client-queue: lots").first?.hasPrefix("live.slow-client-queue: expected an integer")
                == true)
        #expect(
            problems(base + "  server: http://127.0.0.1:8080\n  slow-client-queue: 0")
                == [
                    "live.slow-client-queue: configures the embedded server only; the server at http://127.0.0.1:8080 has its own"
                ])
    }

    /// `live.timer-grid`: the step the virtual users' pauses end on (the default when absent, 0
    /// for none); past 100 ms, negative, or not a duration is refused.
    @Test func theTimerGridDecodesAndBadOnesAreRefused() throws {
        func live(_ line: String) throws -> LiveSpec? {
            try Scenario.decode(yaml: "name: t\nmode: live\nlive:\n  duration: 2s\n\(line)", source: "test.yml").live
        }
        #expect(try live("")?.timerGridMs == LiveSpec().timerGridMs)
        #expect(try live("  timer-grid: 0ms")?.timerGridMs == 0)
        #expect(try live("  timer-grid: 2ms")?.timerGridMs == 2)
        #expect(try live("  timer-grid: 2")?.timerGridMs == 2)  // a bare number is ms, as elsewhere in live:
        let base = "name: t\nmode: live\nlive:\n  duration: 2s\n"
        #expect(problems(base + "  timer-grid: 1s") == ["live.timer-grid: 1s is out of range 0...100 ms"])
        // A duration past any range (past Int, even past Double) is out of range, not a crash.
        #expect(problems(base + "  timer-grid: 1e300s") == ["live.timer-grid: 1e300s is out of range 0...100 ms"])
        #expect(problems(base + "  timer-grid: 1e308m") == ["live.timer-grid: 1e308m is out of range 0...100 ms"])
        #expect(DurationText.parse("90") == .noUnit && DurationText.parse("xs") == .notANumber)
        #expect(DurationText.parse("1.5s") == .milliseconds(1500))
        #expect(problems(base + "  timer-grid: -1ms").first?.hasPrefix("live.timer-grid: ") == true)
        #expect(
            problems(base + "  timer-grid: coarse") == [
                "live.timer-grid: expected a duration with a unit (ms, s or m), got \"coarse\""
            ])
    }

    /// `live.runner-loop`: epoll by default, nio on request; anything else is refused, naming the choices.
    @Test func theRunnerLoopDecodesAndBadOnesAreRefused() throws {
        func live(_ line: String) throws -> LiveSpec? {
            try Scenario.decode(yaml: "name: t\nmode: live\nlive:\n  duration: 2s\n\(line)", source: "test.yml").live
        }
        #expect(try live("")?.runnerLoop == .epoll)
        #expect(try live("  runner-loop: nio")?.runnerLoop == .nio)
        #expect(try live("  runner-loop: epoll")?.runnerLoop == .epoll)
        let base = "name: t\nmode: live\nlive:\n  duration: 2s\n"
        #expect(
            problems(base + "  runner-loop: kqueue") == ["live.runner-loop: expected one of nio, epoll, got \"kqueue\""]
        )
        #expect(
            problems(base + "  runner-loop: [epoll]").first?.hasPrefix(
                "live.runner-loop: expected one of nio, epoll, got ") == true)
    }

    /// `live.recorder-visits`: how often a visiting recorder resyncs (a standing member when
    /// absent); a duration without a unit, out of 20 ms...60 s, or not a duration is refused.
    @Test func theRecorderVisitsDecodeAndBadOnesAreRefused() throws {
        func live(_ line: String) throws -> LiveSpec? {
            try Scenario.decode(yaml: "name: t\nmode: live\nlive:\n  duration: 2s\n\(line)", source: "test.yml").live
        }
        #expect(try live("")?.recorderVisitEveryMs == nil)
        #expect(try live("  recorder-visits: 250ms")?.recorderVisitEveryMs == 250)
        #expect(try live("  recorder-visits: 1s")?.recorderVisitEveryMs == 1000)
        let base = "name: t\nmode: live\nlive:\n  duration: 2s\n"
        #expect(
            problems(base + "  recorder-visits: 5ms") == ["live.recorder-visits: 5ms is out of range 20...60000 ms"])
        #expect(problems(base + "  recorder-visits: 2m") == ["live.recorder-visits: 2m is out of range 20...60000 ms"])
        #expect(
            problems(base + "  recorder-visits: often") == [
                "live.recorder-visits: expected a duration with a unit (ms, s or m), got \"often\""
            ])
        #expect(
            problems(base + "  recorder-visits: [1]").first?.hasPrefix("live.recorder-visits: expected a duration")
                == true)
    }

    @Test func aFullScenarioDecodes() throws {
        let s = try Scenario.decode(
            yaml: """
                name: t
                mode: simulate
                seed: 9
                clients: {count: 4, documents: 2, protocol: 1}
                text: {alphabet: unicode, initial: "hi"}
                ops: 50
                ticks: {safety: 1000, liveness-budget: 500}
                network: {delay: {distribution: exponential, mean: 5, max: 50}, queue-bound: 8}
                think-time: {distribution: fixed, value: 3}
                mix: {typing-burst: 2, reconnect: 1}
                nemeses:
                  - {kind: partition, every: 100, duration: 20}
                  - {kind: slow-client, at: [5, 50], duration: 20, factor: 9}
                faults: [client-tie-priority]
                checkers: [convergence, liveness]
                thresholds: ["convergence == valid", "liveness != invalid"]
                """, source: "t")
        #expect(s.seed == 9 && s.clients == 4 && s.documents == 2 && s.protocolVersion == 1)
        #expect(s.alphabet == .unicode && s.initialText == "hi" && s.ops == 50)
        #expect(s.safetyTicks == 1000 && s.livenessBudget == 500)
        #expect(s.delay == .exponential(mean: 5, max: 50) && s.queueBound == 8 && s.thinkTime == .fixed(3))
        #expect(s.mix[.typingBurst] == 2 && s.mix[.reconnect] == 1 && s.mix[.paste] == 0)
        #expect(
            s.nemeses == [
                NemesisSpec(kind: .partition, every: 100, duration: 20),
                NemesisSpec(kind: .slowClient, at: [5, 50], duration: 20, factor: 9),
            ])
        #expect(s.faults == ["client-tie-priority"])
        #expect(s.checkers == [.convergence, .liveness])
        #expect(s.thresholds.map(\.description) == ["convergence == valid", "liveness != invalid"])
    }

    @Test func everyBuiltinDecodesAndIsIdenticalToItsFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let files = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Scenarios").path)
            .filter { $0.hasSuffix(".yml") }.sorted()
        #expect(files.map { String($0.dropLast(4)) } == BuiltinScenarios.names)
        for (name, text) in BuiltinScenarios.texts {
            let file = try String(contentsOf: root.appendingPathComponent("Scenarios/\(name).yml"), encoding: .utf8)
            #expect(
                file == text, "Scenarios/\(name).yml differs from the embedded text: run python3 Scenarios/embed.py")
            let s = try #require(try BuiltinScenarios.scenario(named: name))
            #expect(s.name == name)
        }
        #expect(try BuiltinScenarios.load("unicode").alphabet == .unicode)
    }

    @Test func wrongTypesSayWhatWasExpectedAndWhere() {
        #expect(problems("name: t\nclients: {count: x}") == [#"clients.count: expected an integer, got "x""#])
        #expect(problems("name: t\nclients: {count: \"3\"}") == [#"clients.count: expected an integer, got "3""#])
        #expect(problems("name: t\nops: [1]") == ["ops: expected an integer, got a list"])
        #expect(problems("name: t\nclients: 3") == ["clients: expected a mapping, got 3"])
        #expect(problems("name: 5") == ["name: expected a string, got 5"])
        #expect(problems("name: t\ncheckers: convergence") == [#"checkers: expected a list, got "convergence""#])
        #expect(problems("- a\n- b") == ["(top level): expected a mapping, got a list"])
    }

    @Test func unknownAndDuplicateKeysAreRejected() {
        #expect(
            problems("name: t\ncolour: blue").first?.hasPrefix("colour: unknown key (allowed: name, description,")
                == true)
        #expect(
            problems("name: t\nclients: {count: 2, cuont: 3}").first?.hasPrefix(
                "clients.cuont: unknown key (allowed: count, documents, protocol)") == true)
        // Yams's parser refuses duplicate keys itself, before the tree reaches the reader.
        #expect(problems("name: t\nops: 1\nops: 2").first?.contains("duplicated key(s): 'ops'") == true)
    }

    @Test func valuesOutOfRangeOrUnknownAreRejected() {
        #expect(problems("name: t\nclients: {protocol: 3}") == ["clients.protocol: 3 is out of range 1...2"])
        #expect(problems("name: t\nclients: {count: 0}") == ["clients.count: 0 is out of range 1...10000"])
        #expect(
            problems("name: t\nclients: {count: 2, documents: 3}") == [
                "clients.documents: 3 documents for 2 clients: every document needs a client"
            ])
        #expect(problems("name: t\nmode: fast") == [#"mode: expected one of simulate, live, got "fast""#])
        #expect(
            problems("name: t\nfaults: [nope]") == [
                #"faults[0]: unknown fault "nope" (see whalesim simulate --list-faults)"#
            ])
        #expect(problems("name: t\nmix: {idle: 0}") == ["mix: every weight is zero: clients would never act"])
        #expect(problems("name: \"a b\"") == [#"name: must be non-empty, without spaces or slashes, got "a b""#])
        #expect(problems("seed: 1") == ["name: missing (every scenario has a name)"])
    }

    @Test func delayDistributionsAreCheckedPerKind() {
        #expect(
            problems("name: t\nthink-time: {distribution: uniform, min: 5}") == [
                "think-time.max: missing (needed by uniform)"
            ])
        #expect(
            problems("name: t\nthink-time: {distribution: uniform, min: 5, max: 2}") == [
                "think-time.min: min 5 is greater than max 2"
            ])
        #expect(
            problems("name: t\nthink-time: {distribution: fixed, value: 1, mean: 2}") == [
                "think-time.mean: not used by a fixed distribution (allowed: distribution, value)"
            ])
        #expect(
            problems("name: t\nthink-time: {min: 1}") == [
                "think-time.distribution: missing (fixed, uniform or exponential)"
            ])
        #expect(
            problems("name: t\nnetwork: {delay: {distribution: normal}}") == [
                #"network.delay.distribution: expected one of fixed, uniform, exponential, got "normal""#
            ])
    }

    @Test func nemesesAndThresholdsAreChecked() {
        #expect(
            problems("name: t\nnemeses: [{kind: disconnect, duration: 5}]") == [
                "nemeses[0]: needs `every` (mean ticks between strikes) or `at` (a list of ticks)"
            ])
        #expect(
            problems("name: t\nnemeses: [{kind: disconnect, every: 5, at: [1], duration: 5}]") == [
                "nemeses[0]: give `every` or `at`, not both"
            ])
        #expect(
            problems("name: t\nnemeses: [{kind: partition, every: 5, duration: 5, factor: 3}]") == [
                "nemeses[0].factor: only a slow-client nemesis has a factor"
            ])
        #expect(
            problems("name: t\nnemeses: [{kind: flood, every: 5, duration: 1}]") == [
                #"nemeses[0].kind: expected one of disconnect, partition, server-restart, slow-client, power-loss, got "flood""#
            ])
        #expect(
            problems("name: t\nthresholds: [\"convergence = ok\"]").first?.hasPrefix(
                #"thresholds[0]: expected "<checker> == valid""#) == true)
        #expect(
            problems("name: t\ncheckers: [liveness]\nthresholds: [\"convergence == valid\"]") == [
                "thresholds[0]: checker convergence is not in checkers"
            ])
    }

    @Test func theModelSectionAndItsWorkloads() throws {
        let s = try Scenario.decode(
            yaml: "name: t\nmix: {move-account: 3, create-task: 1}\nmodel: {board: 4, accounts: 2}\ncheckers: [model]",
            source: "t")
        #expect(s.model == ModelSpec(boardClients: 4, accounts: 2))
        #expect(s.mix[.moveAccount] == 3 && s.mix[.createTask] == 1 && s.checkers == [.model])
        #expect(
            problems("name: t\nmix: {typing-burst: 1, track: 2}") == [
                "mix.track: a model workload needs a `model` section (model: {board: N, accounts: K})"
            ])
        #expect(
            Set(problems("name: t\nmodel: {board: 1, accounts: 0, pages: 2}")) == [
                "model.pages: unknown key (allowed: board, accounts)", "model.accounts: 0 is out of range 1...1000",
            ])
        #expect(try Scenario.decode(yaml: "name: t", source: "t").model == nil)
    }

    @Test func everyProblemIsReportedAtOnce() {
        let found = problems(
            """
            name: t
            seed: -1
            clients: {count: x, protocol: 7, extra: 1}
            network: {delay: {distribution: uniform, min: 9, max: 1}}
            faults: [bogus]
            unknown-top: 1
            """)
        #expect(
            Set(found) == [
                "seed: -1 is out of range 0...\(Int.max)",
                #"clients.count: expected an integer, got "x""#,
                "clients.protocol: 7 is out of range 1...2",
                "clients.extra: unknown key (allowed: count, documents, protocol)",
                "network.delay.min: min 9 is greater than max 1",
                #"faults[0]: unknown fault "bogus" (see whalesim simulate --list-faults)"#,
                "unknown-top: unknown key (allowed: name, description, mode, seed, clients, text, ops, ticks, network, think-time, mix, nemeses, faults, checkers, thresholds, model, live, script, storage, workload)",
            ])
        #expect(found.count == 7)
    }

    @Test func unreadableOrEmptyInputIsAnErrorToo() {
        #expect(problems("") == ["(top level): the file is empty"])
        #expect(problems("name: [unclosed").first?.hasPrefix("(top level): not valid YAML") == true)
        #expect(throws: ScenarioError.self) { try BuiltinScenarios.load("no-such-scenario") }
        #expect(throws: ScenarioError.self) { try BuiltinScenarios.load("/nonexistent/x.yml") }
    }
}

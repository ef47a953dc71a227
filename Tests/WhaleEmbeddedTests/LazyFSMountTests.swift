import Foundation
import Testing
@testable import WhaleEmbedded

#if canImport(Glibc)
    import Glibc
#endif

/// The mount's child handling, with a shell script standing in for `whalesim lazyfs`: its lines
/// are read as they come, a drop returns its report, and a child that cannot mount says why.
@Suite(.enabled(if: access("/dev/fuse", R_OK | W_OK) == 0, "LazyFSMount checks /dev/fuse first"))
struct LazyFSMountTests {
    /// Writes an executable script; it is called as `SCRIPT lazyfs --backing B --mount M`.
    static func script(_ body: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent("fake-lazyfs")
        try ("#!/bin/sh\n" + body).write(to: url, atomically: true, encoding: .utf8)
        chmod(url.path, 0o755)
        return url.path
    }

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "whalesim-lazyfs-mount-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Answers each write of the control file with a drop report, as lazyfs does.
    static let answering = """
        m="$5"
        echo "lazyfs: mounted"
        trap 'exit 0' TERM
        while true; do
          if [ -f "$m/.lazyfs-control" ]; then rm -f "$m/.lazyfs-control"; echo "lazyfs: dropped 3 files (45056 bytes), undid 1 namespace changes"; fi
          sleep 0.01
        done
        """

    @Test func aDropReturnsTheReportThroughPowerLossAfterPowerLoss() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let mount = try LazyFSMount(
            executable: try Self.script(Self.answering, in: dir), backing: dir.appendingPathComponent("backing"),
            mount: dir.appendingPathComponent("mount"))
        // Each power loss ends the child and starts another, with new pipes on the same descriptor numbers.
        for _ in 0..<5 {
            #expect(try mount.losePower(torn: false) == "dropped 3 files (45056 bytes), undid 1 namespace changes")
        }
        mount.unmount()
    }

    @Test func aChildThatCannotMountIsAnErrorThatSaysWhy() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let failing = try Self.script("echo 'fuse: failed to open /dev/fuse: Permission denied' >&2; exit 1", in: dir)
        #expect {
            _ = try LazyFSMount(
                executable: failing, backing: dir.appendingPathComponent("backing"),
                mount: dir.appendingPathComponent("mount"))
        } throws: { error in
            "\(error)".contains("could not mount") && "\(error)".contains("Permission denied")
        }
    }

    @Test func aChildThatSaysNothingIsAnErrorToo() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let silent = try Self.script("exit 3", in: dir)
        #expect {
            _ = try LazyFSMount(
                executable: silent, backing: dir.appendingPathComponent("backing"),
                mount: dir.appendingPathComponent("mount"))
        } throws: { error in
            "\(error)".contains("could not mount") && "\(error)".contains("no answer")
        }
    }
}

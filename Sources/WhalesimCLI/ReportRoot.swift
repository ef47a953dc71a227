import Foundation

/// The `--report-dir` a command will write its run directory under, checked before the run: a
/// ten-minute soak whose report cannot be written should say so in its first second, not after.
enum ReportRoot {
    /// Why `path` cannot hold run directories, or `nil` when it can. Creates it (with its parents)
    /// as writing would, and writes and removes a probe file in it.
    static func problem(_ path: String, option: String = "--report-dir") -> String? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
            return "\(option) \(path): a file, not a directory"
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            return "\(option) \(path): cannot create it (\(Self.reason(error)))"
        }
        let probe = (path as NSString).appendingPathComponent(".whalesim-write-probe-\(getpid())")
        guard FileManager.default.createFile(atPath: probe, contents: Data("probe\n".utf8)) else {
            return "\(option) \(path): cannot write in it (\(String(cString: strerror(errno))))"
        }
        try? FileManager.default.removeItem(atPath: probe)
        return nil
    }

    private static func reason(_ error: any Error) -> String {
        ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription
            ?? error.localizedDescription
    }

    /// The exit code of a command whose verdict is `code` and whose record could not be written:
    /// a passing verdict becomes ``ExitStatus/recordNotWritten`` (CI must not take a run with no
    /// report for a pass); a failing one keeps its own code, which already fails the job.
    static func exitCode(verdict code: Int32, written: Bool) -> Int32 {
        written || code != ExitStatus.pass.rawValue ? code : ExitStatus.recordNotWritten.rawValue
    }
}

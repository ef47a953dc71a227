import ArgumentParser
import Dispatch
import Foundation
import WhaleLazyFS

/// `whalesim lazyfs`: a FUSE passthrough filesystem that keeps written data in memory until it
/// is synced and drops everything unsynced on command, as a power loss would (docs/lazyfs.md).
///
/// ```
/// whalesim lazyfs --backing /var/lib/app-data --mount /mnt/app &
/// echo drop > /mnt/app/.lazyfs-control        # or: kill -USR1 <pid>
/// ```
struct LazyFSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lazyfs",
        abstract: "Mount a directory through FUSE, holding unsynced writes in memory until a power-loss drop.",
        discussion: """
            Writes, truncates and namespace changes (create, remove, rename, mkdir) reach the backing \
            directory only once synced: fsync/fdatasync of a file for its data, fsync of a directory for \
            the names in it. Writing "drop" to MOUNT/.lazyfs-control (or SIGUSR1) forgets everything \
            unsynced; "drop torn" first lets the newest unsynced write reach the disk up to its first page \
            boundary. Reading the control file shows what is unsynced. Serves until SIGTERM or SIGINT, then \
            unmounts (unsynced data is lost). Prints "lazyfs: mounted MOUNT" once up; exits 3 when FUSE \
            cannot be had here. Needs /dev/fuse and libfuse3 (Debian fuse3).

            Examples:
              # two empty directories made first (mkdir -p)
              whalesim lazyfs --backing /tmp/lazy-backing --mount /tmp/lazy-mount
            """)

    @Option(help: "The directory that holds what is durable.")
    var backing: String

    @Option(help: "The empty directory to mount on.")
    var mount: String

    func run() throws {
        var isDirectory: ObjCBool = false
        for (flag, path) in [("--backing", backing), ("--mount", mount)] {
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw BadInput("\(flag) \(path) is not a directory").exit()
            }
        }
        let backingPath = URL(fileURLWithPath: backing).standardizedFileURL.path
        let mountPath = URL(fileURLWithPath: mount).standardizedFileURL.path
        guard backingPath != mountPath, !backingPath.hasPrefix(mountPath + "/"), !mountPath.hasPrefix(backingPath + "/")
        else {
            throw BadInput("--backing and --mount must be separate directories, neither inside the other").exit()
        }
        // Unbuffered writes: a harness reads these lines from a pipe while the mount runs.
        let fs = LazyFileSystem(backing: backingPath) { report in
            FileHandle.standardOutput.write(Data("lazyfs: \(report)\n".utf8))
        }
        // SIGUSR1: drop, for a harness that would rather signal than write the control file.
        // SIGTERM, SIGINT, SIGHUP: unmount and exit. In place before "mounted" is printed: a
        // harness that stops us as soon as it reads that line must not be lost (SignalPipe).
        SignalPipe.install([SIGUSR1, SIGTERM, SIGINT, SIGHUP]) { number in
            if number == SIGUSR1 { fs.drop(torn: false) } else { LazyMount.stop() }
        }
        do {
            try LazyMount.serve(fs, mount: mountPath) {
                FileHandle.standardOutput.write(Data("lazyfs: mounted \(mountPath) over \(backingPath)\n".utf8))
            }
        } catch {
            printError("whalesim lazyfs: \(error)")
            throw ExitStatus.inconclusive
        }
        FileHandle.standardOutput.write(Data("lazyfs: unmounted \(mountPath)\n".utf8))
    }
}

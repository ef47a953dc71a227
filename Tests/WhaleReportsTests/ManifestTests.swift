import Foundation
import Testing
import Yams

/// The sharding manifests in docs/ (docs/distributed-runs.md) parse as YAML and have the
/// fields a Kubernetes Indexed Job and the CI matrices need.
@Suite struct ManifestTests {
    static let docs = Support.packageRoot.appendingPathComponent("docs")

    func documents(_ path: String) throws -> [[String: Any]] {
        let text = try String(contentsOf: Self.docs.appendingPathComponent(path), encoding: .utf8)
        return try Yams.load_all(yaml: text).map {
            try #require($0 as? [String: Any], "\(path): a document is not a mapping")
        }
    }

    @Test func theShardJobIsAnIndexedJob() throws {
        let docs = try documents("k8s/whalesim-shards.yaml")
        #expect(
            docs.allSatisfy {
                $0["apiVersion"] is String && $0["kind"] is String
                    && ($0["metadata"] as? [String: Any])?["name"] is String
            })
        let job = try #require(
            docs.first { ($0["metadata"] as? [String: Any])?["name"] as? String == "whalesim-shards" })
        #expect(job["apiVersion"] as? String == "batch/v1")
        #expect(job["kind"] as? String == "Job")
        let spec = try #require(job["spec"] as? [String: Any])
        #expect(spec["completionMode"] as? String == "Indexed")
        let completions = try #require(spec["completions"] as? Int)
        let parallelism = try #require(spec["parallelism"] as? Int)
        #expect(completions >= 1 && parallelism >= 1 && parallelism <= completions)
        let pod = try #require((spec["template"] as? [String: Any])?["spec"] as? [String: Any])
        // A Job's pods must not restart as Always.
        #expect(["Never", "OnFailure"].contains(pod["restartPolicy"] as? String ?? ""))
        let container = try #require((pod["containers"] as? [[String: Any]])?.first)
        #expect(container["image"] is String)
        let command = ((container["command"] as? [String] ?? []) + (container["args"] as? [String] ?? [])).joined(
            separator: " ")
        #expect(command.contains("whalesim run"))
        #expect(
            command.contains("--shard \"${JOB_COMPLETION_INDEX}/\(completions)\""),
            "the shard count must equal completions: \(command)")
        // Every pod's load begins at one moment, which the Job's environment gives.
        #expect(command.contains("--start-at \"$WHALESIM_START_AT\""), "\(command)")
        let env = (container["env"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(env.contains("WHALESIM_START_AT"))
        // Each shard serves its live view where the Prometheus pod discovery looks for it.
        let annotations =
            ((spec["template"] as? [String: Any])?["metadata"] as? [String: Any])?["annotations"] as? [String: Any]
        let port = try #require(annotations?["prometheus.io/port"] as? String)
        #expect(annotations?["prometheus.io/scrape"] as? String == "true")
        #expect(command.contains("--listen 0.0.0.0:\(port)"), "\(command)")
        // The records volume is mounted and defined.
        let mounts = try #require(container["volumeMounts"] as? [[String: Any]])
        let volumes = try #require(pod["volumes"] as? [[String: Any]])
        let defined = Set(volumes.compactMap { $0["name"] as? String })
        #expect(
            !mounts.isEmpty
                && mounts.allSatisfy { defined.contains($0["name"] as? String ?? "") && $0["mountPath"] is String })
        #expect(docs.contains { $0["kind"] as? String == "PersistentVolumeClaim" })
    }

    @Test func theGitHubWorkflowShardsAndPublishesTheReport() throws {
        let workflow = try #require(try documents("ci/github-actions.yml").first)
        let jobs = try #require(workflow["jobs"] as? [String: Any])
        let shard = try #require(jobs["shard"] as? [String: Any])
        let matrix = try #require((shard["strategy"] as? [String: Any])?["matrix"] as? [String: Any])
        let shards = try #require(matrix["shard"] as? [Int])
        #expect(shards == Array(0..<shards.count))
        let runs = (shard["steps"] as? [[String: Any]] ?? []).compactMap { $0["run"] as? String }.joined(
            separator: "\n")
        #expect(runs.contains("--shard ${{ matrix.shard }}/\(shards.count)"))
        let merge = try #require(jobs["merge"] as? [String: Any])
        #expect(merge["needs"] as? String == "shard")
        let published = (merge["steps"] as? [[String: Any]] ?? []).compactMap {
            ($0["with"] as? [String: Any])?["path"] as? String
        }.joined()
        #expect(published.contains("report.html") && published.contains("junit.xml"))
    }

    @Test func theGitLabPipelineShardsAndPublishesJUnit() throws {
        let pipeline = try #require(try documents("ci/gitlab-ci.yml").first)
        let shard = try #require(pipeline["shard"] as? [String: Any])
        let matrix = try #require((shard["parallel"] as? [String: Any])?["matrix"] as? [[String: Any]])
        let values = try #require(matrix.first?["SHARD"] as? [String])
        #expect((shard["script"] as? [String] ?? []).joined().contains("--shard \"$SHARD/\(values.count)\""))
        let artifacts = try #require((pipeline["merge"] as? [String: Any])?["artifacts"] as? [String: Any])
        #expect((artifacts["reports"] as? [String: Any])?["junit"] as? String == "published/junit.xml")
        #expect((artifacts["paths"] as? [String] ?? []).contains("published/report.html"))
    }
}

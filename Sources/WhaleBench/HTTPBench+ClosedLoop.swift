import WhaleLoad

extension HTTPBench {
    /// `workers` closed loops for `seconds`: each sends the next query when its last one is answered.
    static func closedLoop(
        _ http: any HTTPExecutor, workers: Int, seconds: Double, targets: [String],
        headers: [(String, String)], timeout: Duration
    ) async -> HTTPBenchResult {
        let cpuStart = processCPUSeconds()
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int(seconds * 1000))
        let parts = await withTaskGroup(of: HTTPBenchResult.Worker.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var part = HTTPBenchResult.Worker()
                    var next = worker * 7919
                    while ContinuousClock.now < deadline {
                        let target = targets[next % targets.count]
                        next += 1
                        let sent = ContinuousClock.now
                        do throws(HTTPTransportError) {
                            let result = try await http.execute(
                                HTTPRequestSpec(url: target, headers: headers), timeout: timeout)
                            let elapsed = ContinuousClock.now - sent
                            part.latencies.append(
                                Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds)
                                    * 1000)
                            if result.status != 200 {
                                part.non200 += 1
                                if part.firstError == nil {
                                    part.firstError = "\(result.status) \(result.text.prefix(200))"
                                }
                            }
                        } catch {
                            part.errors += 1
                            if part.firstError == nil { part.firstError = "\(error)" }
                        }
                    }
                    return part
                }
            }
            var parts: [HTTPBenchResult.Worker] = []
            for await part in group { parts.append(part) }
            return parts
        }
        let elapsed = ContinuousClock.now - start
        let cpu = processCPUSeconds() - cpuStart
        return HTTPBenchResult(
            parts: parts, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            cpuSeconds: cpu)
    }
}

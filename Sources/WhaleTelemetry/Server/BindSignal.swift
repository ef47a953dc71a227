import NIOConcurrencyHelpers

/// Hands the bound port (or the reason there is none) from the server's start-up callback to
/// the caller of ``TelemetryServer/start(address:configuration:source:)``, whichever comes first.
final class BindSignal: Sendable {
    private let state = NIOLockedValueBox<
        (result: Result<Int, any Error>?, waiter: CheckedContinuation<Result<Int, any Error>, Never>?)
    >(
        (nil, nil))

    func succeed(_ port: Int) { settle(.success(port)) }
    func fail(_ error: any Error) { settle(.failure(error)) }

    private func settle(_ result: Result<Int, any Error>) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Result<Int, any Error>, Never>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }

    func wait() async -> Result<Int, any Error> {
        await withCheckedContinuation { continuation in
            let ready = state.withLockedValue { state -> Result<Int, any Error>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

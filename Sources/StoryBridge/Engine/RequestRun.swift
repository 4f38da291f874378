import Foundation
import Synchronization

extension Bridge {
    /// Runs one routed request outside any connection (``handle(_:context:)``) and answers it
    /// exactly once. A page connection runs its requests through ``PageConnection``, whose state
    /// machine decides which of a handler and its deadline answers.
    ///
    /// The handler runs on the calling task. Without a `deadline`, its answer goes to `onTime`.
    /// With one, the bridge's shared ``DeadlineTimer`` races it: whichever comes first answers. When
    /// the handler wins, `onTime` gets the answer on the calling task; when the deadline wins,
    /// `atDeadline` gets the 504 on the timer's thread and the handler's late answer is dropped.
    private func run(
        _ routed: RoutedRequest, context: BridgeContext, deadline: Duration?,
        atDeadline: @escaping @Sendable (BridgeResponse?) -> Void, onTime: (BridgeResponse?) async -> Void
    ) async {
        let request = routed.request
        let started = clock.instant
        guard let deadline else {
            await onTime(finish(request, await Self.invoke(routed, context: context), context: context, started: started) { $0 })
            return
        }
        let claim = AnswerClaim()
        let timeout = timer.schedule(at: started + deadline) { [self] in
            guard claim.take() else { return }
            let error = BridgeError.deadlineExceeded(request: request, module: routed.module, after: deadline)
            atDeadline(finish(request, .failure(error), context: context, started: started) { $0 })
        }
        let result = await Self.invoke(routed, context: context)
        timer.cancel(timeout)
        if claim.take() {
            await onTime(finish(request, result, context: context, started: started) { $0 })
        }
    }

    /// Answers `routed` from memory when its command has an answer from memory
    /// (``BridgeCommand/answeringFromMemory(_:)``) and that answer is there: hands the response
    /// (`nil` for a request without a GUID) to `use`, which may write it out without copying it,
    /// and returns what `use` returns; `nil` when the request must go to the handler.
    func answerFromMemory<T>(_ routed: RoutedRequest, context: BridgeContext, _ use: (BridgeResponse?) -> T) -> T? {
        guard let memoryAnswer = routed.route.command.memoryAnswer else { return nil }
        let started = clock.instant
        let outcome: Result<ModuleReply, BridgeError>
        do {
            guard let reply = try memoryAnswer(routed.request, context) else { return nil }
            outcome = .success(reply)
        } catch {
            outcome = .failure(Self.failure(from: error, of: routed))
        }
        return finish(routed.request, outcome, context: context, started: started, use)
    }

    /// Runs one request outside any connection and returns its answer, or `nil` when it carries no
    /// GUID. Returns at the deadline even when the handler never does (it is then cancelled); when
    /// the calling task is cancelled, the handler is cancelled and `nil` is returned at once.
    public func handle(_ request: BridgeRequest, context: BridgeContext) async -> BridgeResponse? {
        guard let routed = routed(request) else {
            let error = BridgeError.unknownCommand(CommandNames.canonical(request.command))
            return finish(request, .failure(error), context: context, started: clock.instant) { $0 }
        }
        // The first answer, the handler's or the deadline's, ends the wait.
        let (answers, answer) = AsyncStream.makeStream(of: BridgeResponse?.self, bufferingPolicy: .bufferingOldest(1))
        let task = Task {
            await run(routed, context: context, deadline: routed.route.deadline, atDeadline: { answer.yield($0) }) {
                answer.yield($0)
            }
        }
        defer { task.cancel() }
        return await withTaskCancellationHandler {
            for await first in answers { return first }
            return nil
        } onCancel: {
            task.cancel()
        }
    }

    /// Calls the command's handler, turning whatever it throws into a ``BridgeError``.
    static func invoke(_ routed: RoutedRequest, context: BridgeContext) async -> Result<ModuleReply, BridgeError> {
        do {
            return .success(try await routed.route.command.answer(routed.request, context: context))
        } catch {
            return .failure(failure(from: error, of: routed))
        }
    }

    /// The ``BridgeError`` a handler's thrown `error` is answered with.
    static func failure(from error: any Error, of routed: RoutedRequest) -> BridgeError {
        switch error {
        case let error as BridgeError: return error
        case let error as StorageError: return .storage(error)
        case is CancellationError where Task.isCancelled:
            return .refused("The request was cancelled: its page went away or its deadline passed")
        default:
            let reason = (error as? any LocalizedError)?.errorDescription ?? String(describing: error)
            return .moduleFailed(command: routed.request.command, module: routed.module.name, reason: reason)
        }
    }
}

extension BridgeError {
    /// The 504 of a request whose handler did not answer within `after`.
    static func deadlineExceeded(request: BridgeRequest, module: any BridgeModule, after: Duration) -> BridgeError {
        let seconds = Double(after.components.seconds) + Double(after.components.attoseconds) / 1e18
        return .deadlineExceeded(command: request.command, module: module.name, seconds: seconds)
    }
}

/// Lets exactly one of a request's handler answer and its deadline answer through, for a request
/// run outside any connection (``Bridge/handle(_:context:)``).
private final class AnswerClaim: Sendable {
    private let taken = Atomic<Bool>(false)

    /// True for the first caller only.
    func take() -> Bool {
        taken.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}

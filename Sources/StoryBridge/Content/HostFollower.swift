/// Something that keeps a running host in step with the world outside it for as long as it runs:
/// a folder being edited (``PresentationWatcher``) or the library's catalog being written by other
/// processes (``LibraryCatalogWatcher``), or Story contexts changed by other processes
/// (``StoryContextWatcher``). The server runs each as a service of its group.
public protocol HostFollower: Sendable {
    /// Follows until the task is cancelled.
    func run(host: StoryBridgeHost) async
}

extension PresentationWatcher: HostFollower {}
extension LibraryCatalogWatcher: HostFollower {}
extension StoryContextWatcher: HostFollower {}

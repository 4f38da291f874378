// A test target that imports StoryBridgeTesting gets the scripted viewer (`ViewerClient`), the
// in-process host (`TestHost`), headless Chromium and the script runner too: they live in
// StoryBridgeScripts, the library the `storybridge test` command ships with.
@_exported import StoryBridgeScripts

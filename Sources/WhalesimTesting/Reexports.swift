/// Tests draw from the one seeded generator, `WhaleCore.SplitMix64`: re-exported so a test (or a
/// benchmark) that imports its support library has it, as before the generator moved to WhaleCore.
@_exported import WhaleCore

import WhaleProtocol

// The simulator passes typed messages (no JSON on the simulated path: the wire codec has its
// own tests). These aliases keep the network's generic parameters short.
typealias ClientEnvelopeBox = ClientEnvelope
typealias ServerEnvelopeBox = ServerEnvelope

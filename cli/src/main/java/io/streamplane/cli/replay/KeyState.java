package io.streamplane.cli.replay;

import io.streamplane.log.ResourceEvent;

/**
 * One key's state as one source gives it: the bytes of the stored {@code ResourceEvent} (the value
 * serde's encoding, as the store's {@code objects} holds it), the event itself where it was decoded
 * (null otherwise), and where in its source the key last changed.
 */
record KeyState(byte[] bytes, ResourceEvent event, int partition, long offset) {}

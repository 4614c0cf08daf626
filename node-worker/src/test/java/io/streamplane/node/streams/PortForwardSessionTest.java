package io.streamplane.node.streams;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.spdy.SpdyFrameCodec;
import io.netty.handler.codec.spdy.SpdySynReplyFrame;
import io.netty.handler.codec.spdy.SpdyVersion;
import org.junit.jupiter.api.Test;

/** The SPDY frames the node writes for port-forward, as kubectl's spdystream must read them. */
class PortForwardSessionTest {

  @Test
  void aSynReplyCarriesAHeaderBlockSpdystreamCanDecode() {
    EmbeddedChannel encoder = new EmbeddedChannel(new SpdyFrameCodec(SpdyVersion.SPDY_3_1));
    encoder.writeOutbound(PortForwardSession.reply(3, "data"));
    ByteBuf wire = encoder.readOutbound();

    // SYN_REPLY: 8 bytes of frame header, 4 of stream id, then the compressed header block, which
    // spdystream reads at least the count of headers from; an empty block is an error there.
    assertThat(wire.getUnsignedShort(2)).isEqualTo(2);
    int length = wire.getUnsignedMedium(5);
    assertThat(length).isGreaterThan(4);
    assertThat(wire.getInt(8) & 0x7fffffff).isEqualTo(3);

    EmbeddedChannel decoder = new EmbeddedChannel(new SpdyFrameCodec(SpdyVersion.SPDY_3_1));
    decoder.writeInbound(wire);
    SpdySynReplyFrame decoded = decoder.readInbound();
    assertThat(decoded.streamId()).isEqualTo(3);
    assertThat(decoded.headers().getAsString("streamtype")).isEqualTo("data");
  }
}

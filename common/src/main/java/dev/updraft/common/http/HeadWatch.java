package dev.updraft.common.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * Tells a connection's {@link HeaderTimeout} when the HTTP decoder has produced a request head and a request
 * end, as a Netty handler just before Vert.x's own. One instance per connection, confined to its event loop.
 */
final class HeadWatch extends ChannelInboundHandlerAdapter {
  static final String NAME = "updraft-head-watch";

  private final HeaderTimeout timeout;

  HeadWatch(HeaderTimeout timeout) {
    this.timeout = timeout;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof HttpRequest) {
      timeout.headDecoded();
    }
    if (msg instanceof LastHttpContent) {
      timeout.requestDecoded(); // a request without a body comes as a head and an empty last content
    }
    ctx.fireChannelRead(msg);
  }
}

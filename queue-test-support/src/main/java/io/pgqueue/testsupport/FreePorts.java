package io.pgqueue.testsupport;

import java.io.IOException;
import java.net.ServerSocket;

/** A TCP port nothing listens on right now, for a server a test starts itself. */
final class FreePorts {

    private FreePorts() {
    }

    static int next() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

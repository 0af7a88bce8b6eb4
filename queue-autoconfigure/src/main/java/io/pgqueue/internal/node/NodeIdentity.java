package io.pgqueue.internal.node;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.UUID;

/**
 * Who this JVM is in the node table: a fresh id per start, so a restarted process never owns the jobs of its
 * previous life.
 *
 * @param id node id, the {@code locked_by} of the jobs it claims
 * @param host host name, for operators
 * @param pid process id, for operators
 */
public record NodeIdentity(UUID id, String host, long pid) {

    public static NodeIdentity create() {
        return new NodeIdentity(UUID.randomUUID(), hostName(), ProcessHandle.current().pid());
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (UnknownHostException ex) {
            return ManagementFactory.getRuntimeMXBean().getName();
        }
    }
}

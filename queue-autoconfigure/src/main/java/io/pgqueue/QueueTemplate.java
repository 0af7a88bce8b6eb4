package io.pgqueue;

/**
 * The bean applications inject to publish jobs: {@link QueueOperations} under the name Spring users look for.
 * pgqueue's implementation validates, serialises with the application's JSON mapper, inserts in one statement
 * per chunk of a batch and wakes the queue's listeners after the commit; an application may define its own
 * bean of this type instead (pgqueue's backs off).
 */
public interface QueueTemplate extends QueueOperations {
}

package io.pgqueue.workflow;

/**
 * A workflow that cannot be submitted as given (a cycle, an unknown parent, a duplicate name, too many nodes);
 * nothing of it was stored.
 */
public class InvalidWorkflowException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public InvalidWorkflowException(String message) {
        super(message);
    }
}

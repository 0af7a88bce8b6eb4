package io.pgqueue.internal.routing;

/**
 * Ids across databases: database {@code n} draws its jobs', workflows' and batches' ids from
 * {@code [n * 2^48, (n + 1) * 2^48)}, so the top bits of an id name its database and ids stay plain
 * {@code long}s (the default database, block 0, is unchanged). 2^48 ids per database is some nine thousand
 * years at a million jobs a second.
 */
public final class IdBlocks {

    static final int SHIFT = 48;

    public static final int MAX_BLOCK = 32767;

    private IdBlocks() {
    }

    /** The first id of a block. */
    public static long first(int block) {
        return (long) block << SHIFT;
    }

    /** The last id of a block. */
    public static long last(int block) {
        return first(block) + ((1L << SHIFT) - 1);
    }

    /** The block an id was drawn from. */
    public static int blockOf(long id) {
        return (int) (id >>> SHIFT);
    }
}

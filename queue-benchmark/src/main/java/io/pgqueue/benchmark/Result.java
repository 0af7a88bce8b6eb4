package io.pgqueue.benchmark;

/**
 * One line of the results table.
 *
 * @param scenario scenario name
 * @param variant what was varied
 * @param pgqueue pgqueue's number
 * @param baseline the raw-SQL baseline's number in the same run, or NaN when there is none
 * @param unit unit of both numbers
 * @param higherIsBetter whether a larger number is better (throughput) or worse (latency, memory)
 * @param notes settings and remarks
 */
record Result(String scenario, String variant, double pgqueue, double baseline, String unit, boolean higherIsBetter,
        String notes) {

    /** pgqueue / baseline, or NaN. */
    double ratio() {
        return (Double.isNaN(baseline) || baseline == 0) ? Double.NaN : pgqueue / baseline;
    }
}

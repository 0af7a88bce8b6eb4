package io.pgqueue.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Draws the scaling curves of one or more result CSVs (queues, nodes, payload sizes) as one SVG image for the
 * docs/performance.md, with no dependency: {@code --chart results-a.csv,results-b.csv --out dir} writes {@code scaling.svg}.
 */
final class Charts {

    private static final int PANEL_WIDTH = 420;

    private static final int PANEL_HEIGHT = 260;

    private static final int MARGIN = 56;

    private static final String[] COLOURS = { "#1f6feb", "#d1242f", "#1a7f37", "#9a6700" };

    /**
     * One panel: results of {@code scenario} whose variant matches {@code variant} (group 1: the x value, group
     * 2: the series), plotted as {@code y} against x.
     */
    private record Panel(String title, String scenario, Pattern variant, String xLabel, String yLabel,
            ToDoubleFunction<Result> y, boolean logX) {
    }

    private static final List<Panel> PANELS = List.of(
            new Panel("Idle statements / s of one node", "queues",
                    Pattern.compile("(\\d+) idle (queues): statements / s of the node"), "queues", "statements / s",
                    Result::pgqueue, true),
            new Panel("Pickup p99 across queues", "queues",
                    Pattern.compile("(\\d+) (queues): pickup p99.*"), "queues", "ms", Result::pgqueue, true),
            new Panel("Drain throughput by nodes", "nodes",
                    Pattern.compile("(\\d+) nodes, (.+): drain \\d+ jobs"), "nodes (JVMs)", "jobs / s",
                    Result::pgqueue, false),
            new Panel("CPU per job by nodes, one queue (2 shared cores)", "nodes",
                    Pattern.compile("(\\d+) nodes, one queue: CPU µs per job, (all JVMs|rest of the machine)"),
                    "nodes (JVMs)", "µs per job", Result::pgqueue, false),
            new Panel("Idle statements / s of the cluster", "nodes",
                    Pattern.compile("(\\d+) nodes, (.+): idle statements / s, cluster"), "nodes (JVMs)",
                    "statements / s", Result::pgqueue, false),
            new Panel("Ratio to raw SQL by payload size", "payload size",
                    Pattern.compile("(\\d+ K?B): (send|drain LEASE).*"), "payload (log scale)", "pgqueue / raw",
                    Result::ratio, true));

    private Charts() {
    }

    static Path write(List<Path> csvs, Path out) throws IOException {
        List<Result> results = new ArrayList<>();
        for (Path csv : csvs) {
            results.addAll(read(csv));
        }
        List<String> panels = new ArrayList<>();
        for (Panel panel : PANELS) {
            Map<String, TreeMap<Double, Double>> series = series(panel, results);
            if (!series.isEmpty()) {
                panels.add(panel(panel, series, (panels.size() % 2) * PANEL_WIDTH, (panels.size() / 2) * PANEL_HEIGHT));
            }
        }
        if (panels.isEmpty()) {
            throw new IllegalArgumentException("No queues, nodes or payload size results in " + csvs);
        }
        int width = Math.min(panels.size(), 2) * PANEL_WIDTH;
        int height = ((panels.size() + 1) / 2) * PANEL_HEIGHT;
        String svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + width + "\" height=\"" + height
                + "\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
                + String.join("", panels) + "</svg>\n";
        Files.createDirectories(out);
        Path file = out.resolve("scaling.svg");
        Files.writeString(file, svg);
        return file;
    }

    private static Map<String, TreeMap<Double, Double>> series(Panel panel, List<Result> results) {
        Map<String, TreeMap<Double, Double>> series = new LinkedHashMap<>();
        for (Result result : results) {
            Matcher matcher = panel.variant().matcher(result.variant());
            double y = panel.y().applyAsDouble(result);
            if (result.scenario().equals(panel.scenario()) && matcher.matches() && !Double.isNaN(y)) {
                series.computeIfAbsent(matcher.group(2), (name) -> new TreeMap<>()).put(x(matcher.group(1)), y);
            }
        }
        return series;
    }

    /** A number, or a payload size such as "32 KB" in bytes. */
    private static double x(String value) {
        String[] parts = value.split(" ");
        double number = Double.parseDouble(parts[0]);
        return (parts.length > 1 && parts[1].equals("KB")) ? number * 1024 : number;
    }

    private static String panel(Panel panel, Map<String, TreeMap<Double, Double>> series, int left, int top) {
        double minX = Double.MAX_VALUE;
        double maxX = -Double.MAX_VALUE;
        double maxY = 0;
        for (TreeMap<Double, Double> points : series.values()) {
            minX = Math.min(minX, points.firstKey());
            maxX = Math.max(maxX, points.lastKey());
            maxY = Math.max(maxY, points.values().stream().mapToDouble(Double::doubleValue).max().orElse(0));
        }
        double top1 = niceCeiling(maxY);
        int plotLeft = left + MARGIN;
        int plotTop = top + 30;
        int plotWidth = PANEL_WIDTH - MARGIN - 20;
        int plotHeight = PANEL_HEIGHT - 30 - 44;
        Scale scaleX = new Scale(minX, maxX, plotLeft, plotWidth, panel.logX());
        StringBuilder svg = new StringBuilder();
        svg.append(text(left + PANEL_WIDTH / 2, top + 18, "middle", "bold", panel.title()));
        svg.append(String.format(Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#d0d7de\"/>\n", plotLeft,
                plotTop, plotWidth, plotHeight));
        for (int tick = 0; tick <= 4; tick++) {
            double value = top1 * tick / 4;
            double y = plotTop + plotHeight - plotHeight * value / top1;
            svg.append(String.format(Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eaeef2\"/>\n", plotLeft, y,
                    plotLeft + plotWidth, y));
            svg.append(text(plotLeft - 4, y + 4, "end", "normal", label(value)));
        }
        series.values().stream().flatMap((points) -> points.keySet().stream()).distinct().forEach((x) -> svg
            .append(text(scaleX.at(x), plotTop + plotHeight + 14, "middle", "normal", xLabel(x, panel))));
        svg.append(text(plotLeft + plotWidth / 2, plotTop + plotHeight + 30, "middle", "normal", panel.xLabel()));
        svg.append(String.format(Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" transform=\"rotate(-90 %d %d)\" text-anchor=\"middle\">%s</text>\n",
                left + 12, plotTop + plotHeight / 2, left + 12, plotTop + plotHeight / 2, escape(panel.yLabel())));
        int index = 0;
        for (Map.Entry<String, TreeMap<Double, Double>> entry : series.entrySet()) {
            String colour = COLOURS[index % COLOURS.length];
            StringBuilder points = new StringBuilder();
            for (Map.Entry<Double, Double> point : entry.getValue().entrySet()) {
                double x = scaleX.at(point.getKey());
                double y = plotTop + plotHeight - plotHeight * point.getValue() / top1;
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", x, y,
                        colour));
            }
            svg.append(String.format(Locale.ROOT,
                    "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", points.toString().trim(),
                    colour));
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"3\" fill=\"%s\"/>\n",
                    plotLeft + 8, plotTop + 10 + 14 * index, colour));
            svg.append(text(plotLeft + 22, plotTop + 15 + 14 * index, "start", "normal", entry.getKey()));
            index++;
        }
        return svg.toString();
    }

    /** Positions along the x axis, linear or logarithmic. */
    private record Scale(double min, double max, int left, int width, boolean log) {

        double at(double value) {
            double from = log ? Math.log(min) : min;
            double to = log ? Math.log(max) : max;
            double at = log ? Math.log(value) : value;
            return (to == from) ? left + width / 2.0 : left + 10 + (width - 20) * (at - from) / (to - from);
        }
    }

    private static String xLabel(double x, Panel panel) {
        if (panel.scenario().equals("payload size")) {
            return (x < 1024) ? label(x) + " B" : label(x / 1024) + " KB";
        }
        return label(x);
    }

    /** The smallest of 1, 2, 2.5 or 5 times a power of ten at or above the value (at least 1). */
    private static double niceCeiling(double value) {
        if (value <= 1) {
            return (value <= 0) ? 1 : Math.ceil(value * 4) / 4;
        }
        double power = Math.pow(10, Math.floor(Math.log10(value)));
        for (double step : new double[] { 1, 2, 2.5, 5, 10 }) {
            if (step * power >= value) {
                return step * power;
            }
        }
        return 10 * power;
    }

    private static String label(double value) {
        if (value == Math.rint(value)) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        return new java.math.BigDecimal(value).setScale(2, java.math.RoundingMode.HALF_UP).stripTrailingZeros()
            .toPlainString();
    }

    private static String text(double x, double y, String anchor, String weight, String text) {
        return String.format(Locale.ROOT,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-weight=\"%s\">%s</text>\n", x, y, anchor, weight,
                escape(text));
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    /** The results of a CSV written by {@link BenchmarkMain}. */
    static List<Result> read(Path csv) throws IOException {
        List<Result> results = new ArrayList<>();
        List<String> lines = Files.readAllLines(csv);
        for (String line : lines.subList(1, lines.size())) {
            List<String> fields = fields(line);
            results.add(new Result(fields.get(0), fields.get(1), number(fields.get(2)), number(fields.get(3)),
                    fields.get(4), true, fields.get(6)));
        }
        return results;
    }

    private static double number(String field) {
        return field.isEmpty() ? Double.NaN : Double.parseDouble(field);
    }

    /** The fields of one CSV line: quoted fields may hold commas and doubled quotes. */
    private static List<String> fields(String line) {
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted && c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                field.append('"');
                i++;
            }
            else if (c == '"') {
                quoted = !quoted;
            }
            else if (c == ',' && !quoted) {
                fields.add(field.toString());
                field.setLength(0);
            }
            else {
                field.append(c);
            }
        }
        fields.add(field.toString());
        return fields;
    }
}

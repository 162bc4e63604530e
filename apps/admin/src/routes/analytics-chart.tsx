import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './analytics-chart.css';

/** One line of a chart: its name, colour and a value per day. */
export type ChartSeries = { label: string; color: string; values: readonly number[] };

type Props = {
  /** The chart's heading (also its figure caption). */
  title: string;
  /** The x of each value: Unix seconds. */
  x: readonly number[];
  /** Label the time axis in UTC (days of the analytics), else in the reader's time zone. */
  utc?: boolean;
  /** The legend's name of the x values (default "Day"). */
  xLabel?: string;
  /** The y axis's top when values are shares (1), else it follows the data. */
  yMax?: number;
  series: readonly ChartSeries[];
  /** What the chart shows, in words, for screen readers (the table below has the numbers). */
  summary: string;
};

const HEIGHT = 220;

/**
 * A line chart over time drawn by uPlot into a canvas, sized to its container. The canvas is
 * hidden from assistive technology: the figure's caption and summary say what it shows, and
 * the page's "Daily numbers" table holds every value.
 */
export function TimeChart(props: Props) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const data: uPlot.AlignedData = [[...props.x], ...props.series.map((line) => [...line.values])];
    const yMax = props.yMax;
    const width = () => Math.max(240, Math.floor(element.clientWidth));
    const chart = new uPlot(
      {
        width: width(),
        height: HEIGHT,
        ...(props.utc ? { tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC') } : {}),
        scales: { x: { time: true }, y: { range: (_self, _min, max) => [0, yMax ?? Math.max(1, max)] } },
        axes: [{ stroke: '#57606a' }, { stroke: '#57606a', size: 44 }],
        series: [
          { label: props.xLabel ?? 'Day' },
          ...props.series.map((line) => ({
            label: line.label,
            stroke: line.color,
            width: 2,
            points: { show: props.x.length <= 31 },
          })),
        ],
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
      },
      data,
      element,
    );
    // Follow the container's width (a phone turned, the window resized).
    const observer =
      typeof ResizeObserver === 'undefined'
        ? null
        : new ResizeObserver(() => chart.setSize({ width: width(), height: HEIGHT }));
    observer?.observe(element);
    return () => {
      observer?.disconnect();
      chart.destroy();
    };
  }, [props.x, props.series, props.utc, props.yMax, props.xLabel]);

  return (
    <figure class="an-chart card">
      <figcaption>
        <h3>{props.title}</h3>
        <p class="sr-only">{props.summary}</p>
      </figcaption>
      <div ref={host} class="an-chart-canvas" aria-hidden="true" />
    </figure>
  );
}

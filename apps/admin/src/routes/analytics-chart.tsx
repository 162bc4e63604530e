import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** One line of a chart: its name, colour and a value per day. */
export type ChartSeries = { label: string; color: string; values: readonly number[] };

type Props = {
  /** The chart's heading (also its figure caption). */
  title: string;
  /** UTC days, `YYYY-MM-DD`, one per value. */
  days: readonly string[];
  series: readonly ChartSeries[];
  /** What the chart shows, in words, for screen readers (the table below has the numbers). */
  summary: string;
};

const HEIGHT = 220;

/**
 * A daily line chart drawn by uPlot into a canvas, sized to its container. The canvas is
 * hidden from assistive technology: the figure's caption and summary say what it shows, and
 * the page's "Daily numbers" table holds every value.
 */
export function DailyChart(props: Props) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const x = props.days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
    const data: uPlot.AlignedData = [x, ...props.series.map((line) => [...line.values])];
    const width = () => Math.max(240, Math.floor(element.clientWidth));
    const chart = new uPlot(
      {
        width: width(),
        height: HEIGHT,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: { x: { time: true }, y: { range: (_self, _min, max) => [0, Math.max(1, max)] } },
        axes: [{ stroke: '#57606a' }, { stroke: '#57606a', size: 44 }],
        series: [
          { label: 'Day' },
          ...props.series.map((line) => ({
            label: line.label,
            stroke: line.color,
            width: 2,
            points: { show: props.days.length <= 31 },
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
  }, [props.days, props.series]);

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

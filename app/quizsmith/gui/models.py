"""Qt model/view adapters over core objects (checked with pytest-qt's qtmodeltester)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QAbstractTableModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QPainter, QPolygon
from PySide6.QtWidgets import QProxyStyle, QStyle, QStyleOption, QStyleOptionHeader, QWidget

from quizsmith.domain import ITEM_TYPE_NAMES, Item, Passage
from quizsmith.gui.scores import LEVEL_COLORS, chip_for, chip_metrics
from quizsmith.operations.passages import passage_label
from quizsmith.settings import Settings

Index = QModelIndex | QPersistentModelIndex
ItemRole = Qt.ItemDataRole.UserRole
SortRole = Qt.ItemDataRole.UserRole + 1

_BASE_COLUMNS = ("ID", "Type", "Status", "Question", "Answer")
_SEVERITY_MARK = {"error": "✖", "warning": "⚠", "info": "ℹ"}
#: Item types as a narrow column shows them (the codes meant nothing to teachers); the
#: tooltip gives the full name.
TYPE_CELLS = {"mcq": "choice", "tf": "T/F", "short": "short", "cloze": "blank"}


class ItemTableModel(QAbstractTableModel):
    """Rows are core Items; score columns are chips coloured by the metric thresholds."""

    #: The chip columns, from the metrics installed when the GUI starts (entry points).
    CHIPS: tuple[tuple[str, str], ...] = chip_metrics()
    COLUMNS: tuple[str, ...] = (*_BASE_COLUMNS, *(label for _, label in CHIPS), "Flags")
    FLAGS_COLUMN = len(COLUMNS) - 1

    def __init__(self, settings: Settings | None = None, parent: Any = None) -> None:
        super().__init__(parent)
        self._items: list[Item] = []
        self.settings = settings
        #: The recorded reason of the latest decision, by item id (shown with the status).
        self.reasons: dict[int, str] = {}
        #: Why a search found the item, where its own text does not say (the bank list:
        #: "matched in its passage"), by item id: (mark before the question, tooltip).
        self.matches: dict[int, tuple[str, str]] = {}

    # --- the adapter's own API --------------------------------------------------------------
    def set_items(
        self,
        items: Sequence[Item],
        reasons: dict[int, str] | None = None,
        matches: dict[int, tuple[str, str]] | None = None,
    ) -> None:
        self.beginResetModel()
        self._items = list(items)
        if reasons is not None:
            self.reasons = dict(reasons)
        self.matches = dict(matches or {})
        self.endResetModel()

    def items(self) -> list[Item]:
        return list(self._items)

    def item_at(self, row: int) -> Item:
        return self._items[row]

    def row_of(self, item_id: int | None) -> int:
        for row, item in enumerate(self._items):
            if item.id == item_id:
                return row
        return -1

    def replace_item(self, item: Item) -> bool:
        """Show the new state of an item already listed; False if it is not listed."""
        row = self.row_of(item.id)
        if row < 0:
            return False
        self._items[row] = item
        self.dataChanged.emit(self.index(row, 0), self.index(row, self.columnCount() - 1))
        return True

    def refresh_all(self) -> None:
        """Redraw every row (after the thresholds that colour the chips changed).

        dataChanged, not a bare layoutChanged: a layoutChanged without its
        layoutAboutToBeChanged leaves a QSortFilterProxyModel's persistent indexes (the
        view's current row and selection) pointing at mappings it has just freed, and the
        next use of them crashed the app (Settings -> Save with items listed, issue 19)."""
        if self._items:
            last = self.index(len(self._items) - 1, self.columnCount() - 1)
            self.dataChanged.emit(self.index(0, 0), last)

    def add_items(self, items: Sequence[Item]) -> None:
        if not items:
            return
        start = len(self._items)
        self.beginInsertRows(QModelIndex(), start, start + len(items) - 1)
        self._items.extend(items)
        self.endInsertRows()

    def remove_ids(self, ids: set[int]) -> None:
        for row in reversed(range(len(self._items))):
            if self._items[row].id in ids:
                self.beginRemoveRows(QModelIndex(), row, row)
                del self._items[row]
                self.endRemoveRows()

    # --- QAbstractTableModel ----------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._items)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(  # noqa: N802
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        horizontal = orientation == Qt.Orientation.Horizontal
        if role == Qt.ItemDataRole.DisplayRole and horizontal and 0 <= section < len(self.COLUMNS):
            return self.COLUMNS[section]
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Vertical:
            return section + 1
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        item = self._items[index.row()]
        col = index.column()
        if role == ItemRole:
            return item
        chip_col = col - len(_BASE_COLUMNS)
        if 0 <= chip_col < len(self.CHIPS):
            chip = chip_for(item, self.CHIPS[chip_col][0], self.settings)
            if role == Qt.ItemDataRole.DisplayRole:
                return chip.cell
            if role == Qt.ItemDataRole.BackgroundRole:
                return QBrush(QColor(LEVEL_COLORS[chip.level]))
            if role == Qt.ItemDataRole.ForegroundRole:
                return QBrush(QColor("#1d1d1d"))
            if role == Qt.ItemDataRole.ToolTipRole:
                return chip.tooltip
            if role == Qt.ItemDataRole.TextAlignmentRole:
                return int(Qt.AlignmentFlag.AlignCenter)
            if role == SortRole:
                score = item.scores.get(self.CHIPS[chip_col][0])
                value = score.value if score is not None and score.scored else None
                return -1.0 if value is None else float(value)
            return None
        match = self.matches.get(item.id or 0) if col == QUESTION_COLUMN else None
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 2 and item.status != "draft" and self.reasons.get(item.id or 0):
                return f"{item.status}: {self.reasons[item.id or 0]}"
            if match:
                return f"{match[0]} {self._text(item, col)}"
            return self._text(item, col)
        if role == Qt.ItemDataRole.ToolTipRole and match:
            return f"{match[1]}\n\n{self._text(item, col)}"
        if role == SortRole:
            if col == 0:
                return item.id or 0
            if col == self.FLAGS_COLUMN:
                return len(item.flags)
            return self._text(item, col)
        if role == Qt.ItemDataRole.ForegroundRole and col == self.FLAGS_COLUMN:
            # Hints alone are grey: they do not call for a review.
            if item.flags and all(f.severity == "info" for f in item.flags):
                return QBrush(QColor("#777777"))
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == self.FLAGS_COLUMN and item.flags:
                return "\n".join(f"• {f.message}" for f in item.flags)
            if col in (3, 4):
                return self._text(item, col)
            if col == 1:
                return ITEM_TYPE_NAMES.get(item.type, item.type)
            if col == 2 and self.reasons.get(item.id or 0):
                return f"{item.status}: {self.reasons[item.id or 0]}"
        return None

    @classmethod
    def _text(cls, item: Item, col: int) -> str:
        if col == 0:
            return "" if item.id is None else str(item.id)
        if col == 1:
            return TYPE_CELLS.get(item.type, item.type)
        if col == 2:
            return item.status
        if col == 3:
            return item.stem
        if col == 4:
            return item.key
        if col == cls.FLAGS_COLUMN:
            # Counts by severity ("⚠1 ℹ2"): the codes ("answer-differs") were words a teacher
            # does not use, and too wide beside the editor; the tooltip has the messages.
            counts = Counter(f.severity for f in item.flags)
            return " ".join(
                f"{_SEVERITY_MARK[sev]}{counts[sev]}" for sev in _SEVERITY_MARK if counts[sev]
            )
        return ""


def setup_item_view(view: Any) -> None:
    """Column widths for a QTableView of ItemTableModel: the question takes the room."""
    from PySide6.QtWidgets import QAbstractItemView, QHeaderView

    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    # Two lines per row: beside the passage list and the editor on a laptop screen the
    # question got about 100 pixels, a few words (issue 27); wrapped, it shows twice that.
    view.setWordWrap(True)
    view.setTextElideMode(Qt.TextElideMode.ElideRight)
    vertical = view.verticalHeader()
    vertical.setVisible(False)
    vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    vertical.setDefaultSectionSize(2 * view.fontMetrics().lineSpacing() + 8)
    header = view.horizontalHeader()
    header.setStretchLastSection(False)
    # Narrow fixed columns: the question needs most of the width to be readable.
    widths = {0: 36, 1: 46, 2: 70, 4: 90, ItemTableModel.FLAGS_COLUMN: 64}
    for col, width in widths.items():
        view.setColumnWidth(col, width)
    metrics = header.fontMetrics()
    for col in range(len(_BASE_COLUMNS), ItemTableModel.FLAGS_COLUMN):
        # As narrow as the chips ("76%", "0.85", "n/a") allow, but never cutting the heading.
        title = ItemTableModel.COLUMNS[col]
        view.setColumnWidth(col, max(48, metrics.horizontalAdvance(title) + 14))
    header.setSectionResizeMode(QUESTION_COLUMN, QHeaderView.ResizeMode.Stretch)
    # Newest first is a downward arrow (Fusion drew it pointing up, issue 47).
    arrows = SortArrowStyle()
    arrows.setParent(header)
    header.setStyle(arrows)
    view.column_fitter = ColumnFitter(view)


#: The column that takes the room left (the question).
QUESTION_COLUMN = 3
#: The share of a list's width the question keeps at least: at 1280x720 it was 20 pixels
#: wide in the Bank tab and 55 in the review queue, beside ten fixed columns (issue 47).
QUESTION_SHARE = 0.4


def hiding_order() -> list[int]:
    """The columns a narrow list hides first: the score chips from the last (the overall
    estimate, the headline, stays longest; the editor shows every chip of the item), then
    the type."""
    first_chip = len(_BASE_COLUMNS)
    chips = list(range(first_chip, ItemTableModel.FLAGS_COLUMN))
    return [*reversed(chips[1:]), 1, *chips[:1]]


class ColumnFitter(QObject):
    """Keeps the question column at QUESTION_SHARE of the list's width at least, hiding the
    columns of `hiding_order` while the list is too narrow and showing them again when it
    widens. Each column's own width is kept, so a shown column comes back as it was."""

    def __init__(self, view: Any) -> None:
        super().__init__(view)
        self.view = view
        self.widths: dict[int, int] = {}
        view.viewport().installEventFilter(self)
        view.model().modelReset.connect(self.fit)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def hidden(self) -> list[int]:
        return [c for c in hiding_order() if self.view.isColumnHidden(c)]

    def fit(self) -> None:
        view = self.view
        available = view.viewport().width()
        if available <= 0:
            return
        columns = range(view.model().columnCount())
        for col in columns:
            if col != QUESTION_COLUMN and not view.isColumnHidden(col):
                self.widths[col] = view.columnWidth(col)
        wanted = QUESTION_SHARE * available
        shown = {c for c in columns if c != QUESTION_COLUMN}
        for col in hiding_order():
            # Every column of the order is shown while the question keeps its share.
            if available - sum(self.widths.get(c, 0) for c in shown) >= wanted:
                break
            shown.discard(col)
        for col in columns:
            if col != QUESTION_COLUMN and view.isColumnHidden(col) == (col in shown):
                view.setColumnHidden(col, col not in shown)
                if col in shown and col in self.widths:
                    view.setColumnWidth(col, self.widths[col])


class SortArrowStyle(QProxyStyle):
    """Draws the sort indicator as the order reads: a downward arrow when the biggest (the
    newest id) comes first. Qt hands the style "SortUp" for a descending sort, which Fusion
    draws as an upward arrow."""

    def drawPrimitive(  # noqa: N802
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        if element != QStyle.PrimitiveElement.PE_IndicatorHeaderArrow or not isinstance(
            option, QStyleOptionHeader
        ):
            super().drawPrimitive(element, option, painter, widget)
            return
        indicator = option.sortIndicator
        if indicator == QStyleOptionHeader.SortIndicator.None_:
            return
        descending = indicator == QStyleOptionHeader.SortIndicator.SortUp
        center = option.rect.center()
        half = max(3, min(option.rect.width(), option.rect.height()) // 3)
        wide, point = (-half // 2, half // 2) if descending else (half // 2, -half // 2)
        triangle = QPolygon(
            [
                QPoint(center.x() - half, center.y() + wide),
                QPoint(center.x() + half, center.y() + wide),
                QPoint(center.x(), center.y() + point),
            ]
        )
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(option.palette.color(option.palette.ColorRole.Text))
        painter.drawPolygon(triangle)
        painter.restore()


class SortableItems(QSortFilterProxyModel):
    """Sorts by numbers for id and score columns (not by their text)."""

    def __init__(self, source: ItemTableModel, parent: Any = None) -> None:
        super().__init__(parent)
        self.setSourceModel(source)
        self.setSortRole(SortRole)

    def item_at(self, row: int) -> Item:
        source = self.sourceModel()
        assert isinstance(source, ItemTableModel)
        return source.item_at(self.mapToSource(self.index(row, 0)).row())


class PassageListModel(QAbstractListModel):
    """The sidebar's passages (title, or the text's first words)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._passages: list[Passage] = []

    def set_passages(self, passages: Sequence[Passage]) -> None:
        self.beginResetModel()
        self._passages = list(passages)
        self.endResetModel()

    def passage_at(self, row: int) -> Passage:
        return self._passages[row]

    def row_of(self, passage_id: int | None) -> int:
        for row, p in enumerate(self._passages):
            if p.id == passage_id:
                return row
        return -1

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._passages)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._passages):
            return None
        passage = self._passages[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return passage_label(passage)
        if role == Qt.ItemDataRole.ToolTipRole:
            return passage.text[:300]
        if role == ItemRole:
            return passage
        return None

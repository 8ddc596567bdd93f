// Stand-ins for the Qt and KSquares types that KSquares's port of Dabble
// (src/dbgame-nohash.cpp and .h) names, so that the engine compiles alone
// with g++, without Qt or the rest of KSquares. build.sh makes the headers
// the engine includes (<QString>, "board.h", ...) include this one file.
//
// Only what the search uses has to work: the driver never calls the
// engine's KSquares entry points (chooseLine, indexToPoints), so the board
// conversions they call abort. The timers never fire: the driver stops the
// search on leaves (driver.cpp), so the engine's play does not depend on
// the machine's speed or load.
#ifndef DNB_ENGINE_QT_STANDIN_H
#define DNB_ENGINE_QT_STANDIN_H

#include <cstdlib>
#include <utility>
#include <vector>

#define Q_OBJECT
#define slots
#define SLOT(member) #member
#define QStringLiteral(text) QString(text)

class QObject {
public:
	virtual ~QObject() {}
};

class QString {
public:
	QString() {}
	QString(const char *) {}
};

template <class T>
class QList {
public:
	int size() const { return int(items.size()); }
	const T &operator[](int i) const { return items[i]; }

private:
	std::vector<T> items;
};

template <class A, class B>
using QPair = std::pair<A, B>;

class QPoint {
public:
	QPoint() : px(0), py(0) {}
	QPoint(int x, int y) : px(x), py(y) {}
	int x() const { return px; }
	int y() const { return py; }
	void setX(int x) { px = x; }
	void setY(int y) { py = y; }

private:
	int px, py;
};

// The engine's clock: valid once started, never expired.
class QElapsedTimer {
public:
	QElapsedTimer() : started(false) {}
	bool isValid() const { return started; }
	void start() { started = true; }
	long long restart() {
		started = true;
		return 0;
	}
	bool hasExpired(long long) const { return false; }

private:
	bool started;
};

// The engine arms a one-second timer per move; it never fires here.
class QTimer {
public:
	static void singleShot(int, QObject *, const char *) {}
};

// qDebug() output is dropped: the driver's stdout is the answer channel.
struct QDebugSink {
	template <class T>
	QDebugSink &operator<<(const T &) { return *this; }
};
inline QDebugSink qDebug() { return QDebugSink(); }

// KSquares's own types.
class KSquaresAi {
public:
	KSquaresAi(int, int) {}
	virtual ~KSquaresAi() {}
};

class Board {
public:
	struct Move {
		int line;
	};
	static bool indexToPoints(int, QPoint *, QPoint *, int, int, bool = true) { std::abort(); }
	static QPair<QPoint, QPoint> pointsToCoins(QPoint, QPoint, int, int) { std::abort(); }
	static QPair<QPoint, QPoint> coinsToPoints(QPoint, QPoint, int, int) { std::abort(); }
	static int pointsToIndex(QPoint, QPoint, int, int) { std::abort(); }
};

#endif

# How prog.jfr was recorded: the JDK's profile settings with only the
# events that have stack traces on (and a threshold of 1 ms), to keep the
# file small:
#   python3 mkjfc.py $JAVA_HOME/lib/jfr/profile.jfc > small.jfc
#   javac Prog.java
#   java -XX:StartFlightRecording=filename=prog.jfr,settings=$PWD/small.jfc Prog 1500
import re, sys

keep = {"jdk.ExecutionSample", "jdk.NativeMethodSample", "jdk.ObjectAllocationSample",
        "jdk.JavaMonitorEnter", "jdk.JavaMonitorWait", "jdk.ThreadPark", "jdk.ThreadSleep",
        "jdk.ObjectAllocationInNewTLAB", "jdk.ObjectAllocationOutsideTLAB"}

def event(m):
    name, body = m.group(1), m.group(2)
    on = "true" if name in keep else "false"
    body = re.sub(r'<setting name="enabled"([^>]*)>[^<]*</setting>',
                  '<setting name="enabled">%s</setting>' % on, body)
    if name in keep:
        body = re.sub(r'<setting name="threshold"([^>]*)>[^<]*</setting>',
                      '<setting name="threshold">1 ms</setting>', body)
    return '<event name="%s">%s</event>' % (name, body)

sys.stdout.write(re.sub(r'<event name="([^"]+)">(.*?)</event>', event, open(sys.argv[1]).read(), flags=re.S))
